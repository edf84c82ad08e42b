import BrokerCore
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
            for (suffix, response) in byPath where url.hasSuffix(suffix) { return response }
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

/// Providers' answers. The first byte picks the mode, the second the HTTP statuses:
///
/// - even: Kakao's access-token sign-in (`POST /v1/signin/kakao {"accessToken"}` through the app): the rest is
///   `token_info body NUL user_me body`, answered to `/v1/user/access_token_info` and `/v2/user/me`;
///   no answer may be a 500;
/// - odd: a JWKS document: the rest is `Cache-Control NUL body`, parsed by `JWKSet(parsing:)` and served to a
///   fresh `JWKSCache`, asked for a key it holds and for one it does not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProviderResponses(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard bytes.count >= 2 else { return 0 }
    let parts = fuzzParts(Array(bytes.dropFirst(2)), limit: 2)
    let second = parts.count > 1 ? parts[1] : []
    let first = Int(bytes[1])
    if bytes[0] % 2 == 0 {
        answers.set([
            "/v1/user/access_token_info": HTTPClientResponse(status: statuses[first % 4], headers: [:], body: parts[0]),
            "/v2/user/me": HTTPClientResponse(status: statuses[(first / 4) % 4], headers: [:], body: second),
        ])
        runBlocking {
            await broker.handle(
                HTTPRequest(
                    method: "POST", path: "/v1/signin/kakao", headers: ["Content-Type": "application/json"],
                    body: Array(#"{"accessToken":"fuzz-access-token"}"#.utf8)))
        }
    } else {
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
