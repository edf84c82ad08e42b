@testable import BrokerCore
import BrokerCrypto
@testable import BrokerIdentity
@testable import BrokerModel
import Foundation
import Testing

/// Sign in with Apple's client secret (contract section 10): an ES256 JWT with Apple's claims, at most 6 months
/// long, minted once and cached until near its expiry.
@Suite struct AppleClientSecretTests {
    @Test func theSecretCarriesApplesClaimsAndIsSignedWithTheDevelopersKey() throws {
        let key = try P256PrivateKey.generate()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let secret = AppleClientSecret(teamID: "TEAM123456", keyID: "KEY1234567", clientID: "com.example.app", key: key, clock: clock)
        let jwt = try JWT(parsing: try secret.current())
        #expect(jwt.header["alg"] == "ES256")
        #expect(jwt.header["kid"] == "KEY1234567")
        #expect(key.publicKey.verifySHA256(signature: jwt.signature, message: jwt.signingInput))
        #expect(jwt.claims["iss"] == "TEAM123456")
        #expect(jwt.claims["sub"] == "com.example.app")
        #expect(jwt.claims["aud"] == "https://appleid.apple.com")
        let issued = try #require(jwt.claims["iat"]?.intValue)
        let expiry = try #require(jwt.claims["exp"]?.intValue)
        #expect(issued == 1_800_000_000)
        #expect(expiry > issued && expiry - issued <= 15_777_000)
    }

    @Test func theSecretIsCachedUntilAnHourBeforeItsExpiry() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let secret = AppleClientSecret(
            teamID: "TEAM123456", keyID: "KEY1234567", clientID: "com.example.app", key: try P256PrivateKey.generate(),
            clock: clock)
        let first = try secret.current()
        clock.advance(by: AppleClientSecret.lifetime - AppleClientSecret.renewBefore - 1)
        #expect(try secret.current() == first)
        clock.advance(by: 2)
        let renewed = try secret.current()
        #expect(renewed != first)
        #expect(try JWT(parsing: renewed).claims["iat"]?.intValue == Int64(clock.now.timeIntervalSince1970))
    }
}
