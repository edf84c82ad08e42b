import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// `beforeCreate`'s body (contract section 16): `user` is the account as the sign-in would store it, its uid not yet
/// told, for every method that creates one.
extension SignInHookTests {
    /// The user body of the call to `path`, and what the broker stored after.
    static func toldUser(_ broker: InProcessBroker, _ path: String) throws -> JSONValue {
        try #require(broker.stubs.appHooks.calls(to: path).last?.body?["user"])
    }

    @Test func beforeCreateIsToldTheWholeAccountAProviderSignInWouldStore() async throws {
        let broker = try await Self.start()
        let token = try broker.stubs.idToken(
            "google",
            claims: [
                "sub": "g-gil", "email": "gil@example.com", "email_verified": true, "name": "Gil Ortega",
                "picture": "https://photos.example/gil.png",
            ])
        let response = await broker.post("/v1/signin/google", ["idToken": .string(token)])
        #expect(response.status == 201)
        let told = try Self.toldUser(broker, Self.create)
        #expect(told["uid"] == .null)
        #expect(told["email"] == "gil@example.com" && told["emailVerified"] == true)
        #expect(told["displayName"] == "Gil Ortega" && told["photoUrl"] == "https://photos.example/gil.png")
        #expect(told["isAnonymous"] == false && told["disabled"] == false && told["customClaims"] == .null)
        let identities = try #require(told["identities"]?.arrayValue)
        #expect(identities.count == 1)
        #expect(identities.first?["provider"] == "google" && identities.first?["subject"] == "g-gil")
        #expect(identities.first?["email"] == "gil@example.com")
        // Never a token.
        let text = String(decoding: told.serialized(), as: UTF8.self)
        #expect(!text.contains(token) && !text.contains("providerToken"))
        // beforeSignIn is told of the same would-be account; what was stored is what the hooks were told of.
        #expect(try Self.toldUser(broker, Self.signIn)["displayName"] == "Gil Ortega")
        let uid = try #require(response.json?["user"]?["uid"]?.stringValue)
        let stored = try #require(await broker.store.account(id: AccountID(uid)))
        #expect(stored.displayName == "Gil Ortega" && stored.photoURL == "https://photos.example/gil.png")
        #expect(stored.email == "gil@example.com" && stored.emailVerified)
        #expect(stored.identities.map(\.subject) == ["g-gil"])
    }

    @Test func beforeCreateIsToldOfAGuestAndOfAPasswordSignUp() async throws {
        let broker = try await Self.start(anonymous: true)
        let guest = await broker.post("/v1/signin/anonymous", [:])
        #expect(guest.status == 201)
        let told = try Self.toldUser(broker, Self.create)
        #expect(told["uid"] == .null && told["isAnonymous"] == true && told["email"] == .null)
        #expect(told["identities"] == [])
        #expect(
            try await broker.store.account(id: AccountID(#require(guest.json?["user"]?["uid"]?.stringValue)))?
                .isAnonymous == true)

        let signUp = await broker.post(
            "/v1/signup", ["email": "hal@example.com", "password": "secret-123", "displayName": "Hal"])
        #expect(signUp.status == 201)
        let toldOfSignUp = try Self.toldUser(broker, Self.create)
        #expect(toldOfSignUp["uid"] == .null && toldOfSignUp["isAnonymous"] == false)
        #expect(toldOfSignUp["email"] == "hal@example.com" && toldOfSignUp["emailVerified"] == false)
        #expect(toldOfSignUp["displayName"] == "Hal" && toldOfSignUp["identities"] == [])
        #expect(!String(decoding: toldOfSignUp.serialized(), as: UTF8.self).contains("secret-123"))
        #expect(await broker.store.account(email: "hal@example.com")?.displayName == "Hal")
    }
}
