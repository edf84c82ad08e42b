import BrokerCore
import BrokerHTTP
public import BrokerModel
import Foundation
import FuzzSupport

/// The app, built once per process.
let broker = FuzzBroker.make()

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzHTTP(_:_:)``.
@_cdecl("fuzz_http_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzHTTP)
}

/// The HTTP request path in process. The input is read like a request on the wire, loosely:
/// `METHOD SP TARGET LF (NAME ":" VALUE LF)* LF BODY`, the target split at `?` into a path and `&`-separated
/// `name=value` query arguments (percent-decoded where they decode). The request goes to `BrokerApp.handle`;
/// no answer may be a 500. The admin token is `fuzz-admin-token` (in the dictionary), so admin routes are reached;
/// `$TOKEN`, `$REFRESH` and `$UID` anywhere in the input become a live session's ID token, refresh token and
/// account id (a password account the harness signs in, signing it up again when an input deleted it), so the
/// routes behind `/v1/me` and the admin routes on a user are reached too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    runBlocking {
        var input = bytes
        if bytes.contains(UInt8(ascii: "$")) {
            let session = await liveSession()
            input = replacing("$TOKEN", with: session.idToken, in: input)
            input = replacing("$REFRESH", with: session.refreshToken, in: input)
            input = replacing("$UID", with: session.uid, in: input)
        }
        await broker.handle(parse(input))
    }
    return 0
}

/// The harness's own account's session: a fresh password sign-in, or a sign-up when an input deleted, disabled or
/// otherwise took the account (then under a new email, as often as needed).
func liveSession() async -> (idToken: String, refreshToken: String, uid: String) {
    let headers = ["Content-Type": "application/json"]
    for _ in 0..<3 {
        let body = Array(#"{"email":"\#(await harnessAccount.email)","password":"fuzz password 1"}"#.utf8)
        var response = await broker.handle(
            HTTPRequest(method: "POST", path: "/v1/signin/password", headers: headers, body: body))
        if response.status != 200 {
            response = await broker.handle(HTTPRequest(method: "POST", path: "/v1/signup", headers: headers, body: body))
        }
        if let session = JSONValue.parse(response.body), let idToken = session["idToken"]?.stringValue,
            let refreshToken = session["refreshToken"]?.stringValue, let uid = session["user"]?["uid"]?.stringValue
        {
            return (idToken, refreshToken, uid)
        }
        await harnessAccount.next()
    }
    fuzzFailure("the harness account can neither sign in nor sign up")
}

/// The email of the harness's account.
actor HarnessAccount {
    private var number = 0

    var email: String { "fuzz-\(number)@example.com" }

    func next() { number += 1 }
}

let harnessAccount = HarnessAccount()

/// `bytes` with every `mark` replaced by `value`.
func replacing(_ mark: String, with value: String, in bytes: [UInt8]) -> [UInt8] {
    let mark = Array(mark.utf8)
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if index + mark.count <= bytes.count, bytes[index..<(index + mark.count)].elementsEqual(mark) {
            out.append(contentsOf: value.utf8)
            index += mark.count
        } else {
            out.append(bytes[index])
            index += 1
        }
    }
    return out
}
