import BrokerCore
import BrokerFirebase
public import BrokerModel
import Foundation
import FuzzSupport

/// The hash parameters of a Firebase project's console (its defaults), so that imported hashes are decoded too.
let hash = try? FirebaseHashOptions(
    hashAlgo: "SCRYPT", hashKey: "c2lnbmVyLWtleS1vZi10aGUtcHJvamVjdA==", saltSeparator: "Bw==", rounds: "8",
    memCost: "14")
let options = try? FirebaseImportOptions(
    hash: hash, providers: ["google.com": ProviderID("google"), "apple.com": ProviderID("apple")],
    mapProvider: ["oidc.kakao=kakao"], linkUIDPrefix: ["kakao:=kakao"])

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzFirebaseExport(_:_:)``.
@_cdecl("fuzz_firebase_export_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzFirebaseExport)
}

/// The fuzz bytes as a `firebase auth:export` file: the streaming check of the whole file, then each user record
/// (at most 64) decoded and planned as `broker admin import` plans it (uid, identities, claims, times, the
/// imported hash's stored form). Any thrown error is an answer; a crash is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFirebaseExport(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard let export = try? FirebaseExport(data: Data(bytes)), let options else { return 0 }
    for index in 0..<min(export.count, 64) {
        guard let record = try? export.user(at: index) else { continue }
        _ = try? FirebaseImportPlan(record, options: options, importedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }
    return 0
}
