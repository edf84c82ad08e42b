import BrokerCore
import BrokerFirebase
import Foundation
import FuzzSupport

/// The app, built once per process.
let broker = FuzzBroker.make()

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzFirebase(_:_:)``.
@_cdecl("fuzz_firebase_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzFirebase)
}

/// The Firebase-compatible listener's request path in process (contract section 11): the input is read as a
/// request (``parse(_:)``) and handed to the Firebase app, whose `Host` check accepts `127.0.0.1:9099`; no answer
/// may be a 500. `Authorization: Bearer owner` (in the dictionary) reaches the admin calls, `?key=` the client
/// calls; JSON and form-encoded bodies, `postBody`, hash parameters and page tokens come from the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFirebase(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    runBlocking { await broker.handle(parse(bytes), firebase: true) }
    return 0
}
