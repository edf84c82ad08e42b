import BrokerCore
import BrokerFirebase
public import BrokerIdentity
public import BrokerModel
import BrokerTesting
import Foundation
import FuzzSupport

/// Never answers: building providers must not call out.
let client = ScriptedHTTPClient { _ in throw HTTPClientError(.connectionFailed) }

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzConfig(_:_:)``.
@_cdecl("fuzz_config_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzConfig)
}

/// `BrokerConfig(parsing:environment:sections:)` on the fuzz bytes (with the Firebase module's sections, as `serve`), then the provider registry built from it with the
/// built-in catalog (each provider's factory validating its entry). Any thrown error is an answer; a crash is a
/// finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard let config = try? BrokerConfig(parsing: bytes, environment: [:], sections: FirebaseModule.configSections)
    else { return 0 }
    let context = ProviderContext(
        httpClient: client, clock: ManualClock(), metrics: Metrics(), logger: .disabled, clockSkew: config.clockSkew,
        allowInsecureURLs: config.allowInsecureProviderURLs)
    _ = try? ProviderRegistry(config: config, catalog: .builtIn, context: context)
    _ = SessionSettings(config: config)
    return 0
}
