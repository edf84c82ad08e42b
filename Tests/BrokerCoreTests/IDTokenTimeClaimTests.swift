import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Time claims from outside: every one bounded before it is used (issue 10, items 5 and 8).
extension IDTokenVerifierTests {
    static let timeClaims = ["exp", "iat", "nbf", "auth_time"]

    /// Values no time claim may carry: past the bound (1e17 killed the process), not above 0, not a number.
    static let outOfBounds: [JSONValue] = [
        .double(1e17), .int(100_000_000_000_000_000), .double(1e300), .double(-1e300), .int(-1), .int(0),
        .double(-0.5), .int(8_589_934_592), .int(Int64.max), .int(Int64.min), "1800000000", "tomorrow", true, [1],
        ["seconds": 1],
    ]

    @Test(arguments: timeClaims, outOfBounds)
    func aTimeClaimOutOfBoundsIsMalformed(_ claim: String, _ value: JSONValue) async throws {
        #expect(await refusal(try token([claim: value])) == .malformed)
    }

    /// Spellings only raw JSON has: overflow to infinity, negative zero, null.
    @Test(arguments: timeClaims, ["1e400", "-1e400", "-0", "null", "1E17", "0.0"])
    func aTimeClaimSpelledOutOfBoundsIsMalformed(_ claim: String, _ literal: String) async throws {
        var members = claims().filter { $0.key != claim }.map { "\"\($0.key)\":\(String(decoding: $0.value.serialized(), as: UTF8.self))" }
        members.append("\"\(claim)\":\(literal)")
        let token = try TestTokens.sign(rawClaims: "{" + members.joined(separator: ",") + "}", key: key, kid: "k1")
        #expect(await refusal(token) == .malformed)
    }

    @Test func inBoundsTimeClaimsAreAccepted() async throws {
        let accepted = try token([
            "exp": .double(Double(now) + 3600.5), "iat": .int(now - 10), "nbf": .int(now - 10), "auth_time": .int(now - 100),
        ])
        #expect(await refusal(accepted) == nil)
        #expect(await refusal(try token(["auth_time": .int(1)])) == nil)
    }

    @Test func notBeforeMustNotBeInTheFutureBeyondTheSkew() async throws {
        #expect(await refusal(try token(["nbf": .int(now + 3600)])) == .notYetValid)
        #expect(await refusal(try token(["nbf": .int(now + 61)])) == .notYetValid)
        #expect(await refusal(try token(["nbf": .int(now + 60)])) == nil)
        #expect(await refusal(try token(["nbf": .int(now + 30)])) == nil)
        #expect(await refusal(try token(["nbf": .int(now)])) == nil)
        // Absent is fine: `nbf` is optional.
        #expect(await refusal(try token(["nbf": .null])) == nil)
    }
}
