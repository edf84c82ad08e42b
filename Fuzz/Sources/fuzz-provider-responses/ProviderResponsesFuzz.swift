import BrokerCore
public import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import FuzzSupport

/// What the scripted provider answers to the current input's calls.
final class Answers: @unchecked Sendable {
    // Guarded by `lock`.
    private var byPath: [String: HTTPClientResponse] = [:]
    private let lock = NSLock()

    func set(_ answers: [String: HTTPClientResponse]) { lock.withLock { byPath = answers } }

    func answer(_ url: String) throws -> HTTPClientResponse {
        try lock.withLock {
            let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
            for (suffix, response) in byPath where path.hasSuffix(suffix) { return response }
            throw HTTPClientError(.connectionFailed)
        }
    }
}

let answers = Answers()
let client = ScriptedHTTPClient { request in try answers.answer(request.url) }
/// The app, built once per process, its outbound calls answered with the fuzz bytes.
let broker = FuzzBroker.make(httpClient: client)
let statuses = [200, 400, 401, 503]

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzProviderResponses(_:_:)``.
@_cdecl("fuzz_provider_responses_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzProviderResponses)
}

/// Providers' answers. The first byte picks the mode (modulo 4), the second the HTTP statuses:
///
/// - 0: Kakao's access-token sign-in (`POST /v1/signin/kakao {"accessToken"}` through the app): the rest is
///   `token_info body NUL user_me body`, answered to `/v1/user/access_token_info` and `/v2/user/me`;
///   no answer may be a 500;
/// - 1: a JWKS document: the rest is `Cache-Control NUL body`, parsed by `JWKSet(parsing:)` and served to a
///   fresh `JWKSCache`, asked for a key it holds and for one it does not;
/// - 2: Naver's sign-in (`POST /v1/signin/naver`): the rest is the body answered to `/v1/nid/me`;
/// - 3: LINE's access-token sign-in (`POST /v1/signin/line {"accessToken"}`): `verify body NUL profile body`,
///   answered to `/oauth2/v2.1/verify` and `/v2/profile`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProviderResponses(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard bytes.count >= 2 else { return 0 }
    let parts = fuzzParts(Array(bytes.dropFirst(2)), limit: 2)
    let second = parts.count > 1 ? parts[1] : []
    let first = Int(bytes[1])
    /// Signs in through the app with an access token, the provider's calls answered as set.
    func signIn(_ provider: String, answering calls: [String: [UInt8]]) {
        var set: [String: HTTPClientResponse] = [:]
        for (offset, (path, body)) in calls.sorted(by: { $0.key < $1.key }).enumerated() {
            set[path] = HTTPClientResponse(status: statuses[(first >> (2 * offset)) % 4], headers: [:], body: body)
        }
        answers.set(set)
        runBlocking {
            await broker.handle(
                HTTPRequest(
                    method: "POST", path: "/v1/signin/" + provider, headers: ["Content-Type": "application/json"],
                    body: Array(#"{"accessToken":"fuzz-access-token"}"#.utf8)))
        }
    }
    switch bytes[0] % 4 {
    case 0: signIn("kakao", answering: ["/v1/user/access_token_info": parts[0], "/v2/user/me": second])
    case 2: signIn("naver", answering: ["/v1/nid/me": parts[0]])
    case 3: signIn("line", answering: ["/oauth2/v2.1/verify": parts[0], "/v2/profile": second])
    default:
        let parsed = try? JWKSet(parsing: second)
        let headers = ["cache-control": String(decoding: parts[0], as: UTF8.self)]
        answers.set(["/jwks": HTTPClientResponse(status: statuses[first % 4], headers: headers, body: second)])
        let cache = JWKSCache(
            url: "http://jwks.in-process/jwks", provider: "fuzz", client: client, clock: ManualClock(FuzzBroker.now),
            metrics: Metrics(), logger: .disabled)
        runBlocking {
            if let kid = parsed?.keys.keys.first { _ = try? await cache.key(id: kid) }
            _ = try? await cache.key(id: "fuzz-unknown-kid")
        }
    }
    return 0
}
