import BrokerCore
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@testable import BrokerAuth

/// Passkeys through BrokerAuth against a live broker (contract section 15), with BrokerTesting's software
/// authenticator standing in for the phone's: the relying party `example.com` and the origin an iOS app with the
/// `webcredentials:example.com` associated domain sends. Every ceremony goes through the client's own types: its
/// options decoded from the broker's JSON, the authenticator's answer decoded into them and encoded back.
@Suite struct PasskeyClientTests {
    static let rpID = "example.com"

    /// A live broker with passkeys (and guests) on; `clock` is the broker's.
    static func withPasskeyBroker<T>(
        clock: any BrokerModel.Clock = SystemClock(), _ body: (BrokerHarness) async throws -> T
    ) async throws -> T {
        let harness = try await BrokerHarness.start(serviceAccount: true, clock: clock) { document in
            guard case .object(var members) = document else { return document }
            members["anonymous"] = ["enabled": true]
            members["passkeys"] = [
                "enabled": true, "rpId": .string(rpID), "origins": [.string("https://\(rpID)")],
            ]
            return .object(members)
        }
        return try await harness.stopping(after: body)
    }

    /// A phone's platform authenticator for the relying party.
    static func phone() throws -> TestAuthenticator {
        try TestAuthenticator(rpID: rpID, origin: "https://\(rpID)")
    }

    /// What `authenticator` answers to registration `options`, as the app hands it to the client.
    static func register(
        _ authenticator: inout TestAuthenticator, _ options: PasskeyRegistrationOptions
    ) throws -> PasskeyRegistration {
        let json = try authenticator.register(challenge: Array(options.challenge), userHandle: Array(options.user.id))
        return try JSONDecoder().decode(PasskeyRegistration.self, from: Data(json.serialized()))
    }

    /// What `authenticator` answers to sign-in `options` (bent by `ceremony`).
    static func assert(
        _ authenticator: inout TestAuthenticator, _ options: PasskeySignInOptions,
        _ ceremony: TestCeremony = TestCeremony()
    ) throws -> PasskeyAssertion {
        let json = try authenticator.authenticate(challenge: Array(options.challenge), ceremony)
        return try JSONDecoder().decode(PasskeyAssertion.self, from: Data(json.serialized()))
    }

    /// The credentials are WebAuthn JSON as a browser's `credential.toJSON()` writes it: base64url without padding,
    /// `id` and `rawId` the same; a JSON whose `rawId` differs, or that is plain base64, is not read.
    @Test func theCredentialsAreWebAuthnJSON() throws {
        let assertion = PasskeyAssertion(
            credentialID: Data([0xfb, 0xff]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([1, 2, 3]),
            signature: Data([0xfe]), userHandle: nil, authenticatorAttachment: "platform")
        let encoded = try JSONEncoder().encode(assertion)
        let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(json["id"] as? String == "-_8")
        #expect(json["rawId"] as? String == "-_8")
        #expect(json["type"] as? String == "public-key")
        #expect(json["authenticatorAttachment"] as? String == "platform")
        let response = try #require(json["response"] as? [String: Any])
        #expect(response["clientDataJSON"] as? String == "e30")
        #expect(response["authenticatorData"] as? String == "AQID")
        #expect(response["signature"] as? String == "_g")
        #expect(response["userHandle"] == nil)
        #expect(try JSONDecoder().decode(PasskeyAssertion.self, from: encoded) == assertion)

        func decode(id: String, rawId: String) throws -> PasskeyAssertion {
            let text = """
                {"id": "\(id)", "rawId": "\(rawId)", "type": "public-key",
                 "response": {"clientDataJSON": "e30", "authenticatorData": "AQID", "signature": "_g",
                              "userHandle": "AQ"}}
                """
            return try JSONDecoder().decode(PasskeyAssertion.self, from: Data(text.utf8))
        }
        #expect(try decode(id: "-_8", rawId: "-_8").userHandle == Data([1]))
        #expect(throws: DecodingError.self) { try decode(id: "-_8", rawId: "AQ") }
        #expect(throws: DecodingError.self) { try decode(id: "+/8", rawId: "+/8") }
    }

    @Test func aPasskeyRegisteredOnAnAccountSignsInOnAnotherDeviceAndStaysSignedIn() async throws {
        try await Self.withPasskeyBroker { broker in
            let auth = broker.client()
            let created = try await auth.signUp(email: "pk@example.com", password: "correct horse")
            let options = try await auth.passkeyRegistrationOptions()
            #expect(options.relyingParty.id == Self.rpID)
            #expect(options.challenge.count == 32)
            #expect(options.user.name == "pk@example.com")
            #expect(!options.user.id.isEmpty)
            #expect(options.credentialParameters.map(\.algorithm) == [-7, -19, -8, -257])
            #expect(options.authenticatorSelection?.residentKey == "required")
            #expect(options.authenticatorSelection?.userVerification == "required")
            #expect(options.attestation == "none")
            #expect(options.excludedCredentials.isEmpty)

            var phone = try Self.phone()
            let passkey = try await auth.registerPasskey(credential: try Self.register(&phone, options), name: "iPhone")
            #expect(passkey.id == Base64URL.encode(Data(phone.credentialID)))
            #expect(passkey.name == "iPhone")
            #expect(passkey.createdAt != nil && passkey.lastUsedAt == nil)
            let stored = try await broker.store.passkeys(uid: AccountID(created.user.uid))
            #expect(stored.map(\.id) == [passkey.id])
            #expect(stored.first?.userHandle == Base64URL.encode(options.user.id))
            // The next registration's options exclude it.
            let next = try await auth.passkeyRegistrationOptions()
            #expect(next.excludedCredentials.map(\.id) == [Data(phone.credentialID)])

            // Another device, with its own session file: a discoverable sign-in, no user name asked.
            let directory = try LiveBroker.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("session.json")
            let device = broker.client(.file(file))
            let changes = device.sessionChanges
            let signInOptions = try await device.passkeySignInOptions()
            #expect(signInOptions.relyingPartyID == Self.rpID)
            #expect(signInOptions.challenge.count == 32)
            #expect(signInOptions.userVerification == "required")
            #expect(signInOptions.allowedCredentials.isEmpty)
            let result = try await device.signIn(withPasskey: try Self.assert(&phone, signInOptions))
            #expect(result.user.uid == created.user.uid)
            #expect(!result.isNewUser)
            #expect(result.customToken != nil)
            #expect(device.currentUser == result.user)
            #expect(await take(1, from: changes) == [.signedIn(result.user)])
            let idToken = try await device.idToken()
            #expect(try JWT(parsing: idToken).claims["sign_in_provider"] == "passkey")
            #expect(try await broker.me(idToken) == (200, created.user.uid))
            #expect(try await broker.store.passkey(id: passkey.id)?.lastUsedAt != nil)

            // Auto-login: a new instance on the same storage is signed in at once, and refreshes.
            let relaunched = broker.client(.file(file))
            #expect(relaunched.currentUser?.uid == created.user.uid)
            #expect(try await broker.me(try await relaunched.idToken()) == (200, created.user.uid))
        }
    }

    @Test func aReplayedAssertionIsRefusedAndTheSessionStaysAsItWas() async throws {
        try await Self.withPasskeyBroker { broker in
            let owner = broker.client()
            let created = try await owner.signUp(email: "replay@example.com", password: "correct horse")
            var phone = try Self.phone()
            let passkey = try await owner.registerPasskey(
                credential: try Self.register(&phone, try await owner.passkeyRegistrationOptions()))

            let device = broker.client()
            let assertion = try Self.assert(&phone, try await device.passkeySignInOptions())
            let signedIn = try await device.signIn(withPasskey: assertion)
            let idToken = try await device.idToken()
            let counter = try #require(try await broker.store.passkey(id: passkey.id)?.signCount)
            let sessions = try await broker.count("refresh_tokens")

            // The same answer again: its challenge was spent.
            await #expect(throws: BrokerAuthError.invalidPasskey) { try await device.signIn(withPasskey: assertion) }
            // A fresh challenge answered with a counter that did not advance: a cloned authenticator.
            let cloned = try Self.assert(
                &phone, try await device.passkeySignInOptions(), Self.ceremony(signCount: UInt32(counter)))
            await #expect(throws: BrokerAuthError.invalidPasskey) { try await device.signIn(withPasskey: cloned) }
            // A client signed in to no one stays so.
            let stranger = broker.client()
            await #expect(throws: BrokerAuthError.invalidPasskey) { try await stranger.signIn(withPasskey: assertion) }
            #expect(stranger.currentUser == nil)
            await #expect(throws: BrokerAuthError.notSignedIn) { try await stranger.idToken() }

            // Nothing changed: the same user and ID token here, no new session, the counter where it was.
            #expect(device.currentUser == signedIn.user)
            #expect(try await device.idToken() == idToken)
            #expect(try await broker.me(idToken) == (200, created.user.uid))
            #expect(try await broker.count("refresh_tokens") == sessions)
            #expect(try await broker.store.passkey(id: passkey.id)?.signCount == counter)
            // The honest authenticator, its counter advanced, still signs in.
            let again = try await device.signIn(
                withPasskey: try Self.assert(&phone, try await device.passkeySignInOptions()))
            #expect(again.user.uid == created.user.uid)
            #expect(try #require(try await broker.store.passkey(id: passkey.id)?.signCount) > counter)
        }
    }

    static func ceremony(signCount: UInt32) -> TestCeremony {
        var ceremony = TestCeremony()
        ceremony.signCount = signCount
        return ceremony
    }

    @Test func aPasswordlessSignUpMakesAnAccountWhoseOnlyWayInIsThePasskey() async throws {
        try await Self.withPasskeyBroker { broker in
            let auth = broker.client()
            let changes = auth.sessionChanges
            let options = try await auth.passkeySignUpOptions(email: "new@example.com", displayName: "Pat")
            #expect(options.user.name == "new@example.com")
            #expect(options.user.displayName == "Pat")
            #expect(options.excludedCredentials.isEmpty)
            var phone = try Self.phone()
            let registration = try Self.register(&phone, options)
            let result = try await auth.signUp(withPasskey: registration, name: "Pat's iPhone")
            #expect(result.isNewUser)
            #expect(result.user.email == "new@example.com" && !result.user.emailVerified)
            #expect(result.user.displayName == "Pat")
            #expect(result.user.identities.isEmpty && !result.user.isAnonymous)
            #expect(auth.currentUser == result.user)
            #expect(await take(1, from: changes) == [.signedIn(result.user)])
            #expect(try await broker.me(try await auth.idToken()) == (200, result.user.uid))
            let passkeys = try await auth.passkeys()
            #expect(passkeys.map(\.name) == ["Pat's iPhone"])
            #expect(try await broker.store.passkeys(uid: AccountID(result.user.uid)).map(\.id) == passkeys.map(\.id))

            // Refused, nothing stored: the same answer again, a taken email, an invalid one.
            await #expect(throws: BrokerAuthError.invalidPasskey) {
                try await broker.client().signUp(withPasskey: registration)
            }
            await #expect(throws: BrokerAuthError.emailExists) {
                try await broker.client().passkeySignUpOptions(email: "new@example.com")
            }
            await #expect(throws: BrokerAuthError.invalidEmail) {
                try await broker.client().passkeySignUpOptions(email: "not an email")
            }
            // Its only way in cannot be removed.
            await #expect(throws: BrokerAuthError.lastIdentity) { try await auth.deletePasskey(id: passkeys[0].id) }
            #expect(try await auth.passkeys() == passkeys)
            #expect(try await broker.count("accounts") == 1)

            let device = broker.client()
            let signedIn = try await device.signIn(
                withPasskey: try Self.assert(&phone, try await device.passkeySignInOptions()))
            #expect(signedIn.user.uid == result.user.uid)
        }
    }

    @Test func passkeysAreListedRenamedAndRemovedAfterARecentSignIn() async throws {
        let clock = ManualClock(Date())
        try await Self.withPasskeyBroker(clock: clock) { broker in
            let auth = broker.client()
            let created = try await auth.signUp(email: "list@example.com", password: "correct horse")
            var phone = try Self.phone()
            var laptop = try Self.phone()
            let first = try await auth.registerPasskey(
                credential: try Self.register(&phone, try await auth.passkeyRegistrationOptions()), name: "Phone")
            clock.advance(by: 1)
            let second = try await auth.registerPasskey(
                credential: try Self.register(&laptop, try await auth.passkeyRegistrationOptions()))
            #expect(second.name == nil)
            #expect(try await auth.passkeys().map(\.id) == [first.id, second.id])

            let renamed = try await auth.renamePasskey(id: first.id, to: "Work phone")
            #expect(renamed.id == first.id && renamed.name == "Work phone")
            #expect(try await auth.passkeys().map(\.name) == ["Work phone", nil])
            #expect(try await auth.renamePasskey(id: first.id, to: nil).name == nil)
            #expect(try await broker.store.passkey(id: first.id)?.name == nil)
            await #expect(throws: BrokerAuthError.notFound) { try await auth.renamePasskey(id: "AAAA", to: "x") }

            // Six minutes on, a registration and a removal need a new sign-in; the list and a rename do not.
            clock.advance(by: 6 * 60)
            await #expect(throws: BrokerAuthError.recentSignInRequired) { try await auth.passkeyRegistrationOptions() }
            await #expect(throws: BrokerAuthError.recentSignInRequired) { try await auth.deletePasskey(id: second.id) }
            #expect(try await auth.passkeys().count == 2)
            // A passkey sign-in is recent.
            try await auth.signIn(withPasskey: try Self.assert(&laptop, try await auth.passkeySignInOptions()))
            try await auth.deletePasskey(id: second.id)
            #expect(try await auth.passkeys().map(\.id) == [first.id])
            #expect(try await broker.store.passkeys(uid: AccountID(created.user.uid)).map(\.id) == [first.id])
            await #expect(throws: BrokerAuthError.notFound) { try await auth.deletePasskey(id: second.id) }
            // The removed passkey signs in no more.
            let removed = try Self.assert(&laptop, try await auth.passkeySignInOptions())
            await #expect(throws: BrokerAuthError.invalidPasskey) {
                try await broker.client().signIn(withPasskey: removed)
            }
        }
    }

    @Test func aGuestIsUpgradedInPlaceByRegisteringAPasskey() async throws {
        try await Self.withPasskeyBroker { broker in
            let auth = broker.client()
            let guest = try await auth.signInAnonymously()
            #expect(guest.user.isAnonymous)
            let changes = auth.sessionChanges
            var phone = try Self.phone()
            let passkey = try await auth.registerPasskey(
                credential: try Self.register(&phone, try await auth.passkeyRegistrationOptions()), name: "iPhone")
            let upgraded = try #require(auth.currentUser)
            #expect(upgraded.uid == guest.user.uid)
            #expect(!upgraded.isAnonymous)
            #expect(await take(1, from: changes) == [.userUpdated(upgraded)])
            #expect(try await broker.store.account(id: AccountID(guest.user.uid))?.isAnonymous == false)
            #expect(try await auth.reloadUser() == upgraded)  // what the client kept is what the broker has
            #expect(try await broker.me(try await auth.idToken()) == (200, guest.user.uid))

            let device = broker.client()
            let signedIn = try await device.signIn(
                withPasskey: try Self.assert(&phone, try await device.passkeySignInOptions()))
            #expect(signedIn.user.uid == guest.user.uid)
            #expect(try await device.passkeys().map(\.id) == [passkey.id])
            #expect(try await broker.count("accounts") == 1)
        }
    }

    // Needs branch passkeys3 (a guest's Bearer on /v1/signup/passkey makes it an upgrade, contract section 15):
    // until it is merged, the broker ignores the Bearer and makes a new account, and this test fails.
    @Test func aGuestIsUpgradedInPlaceByAPasswordlessSignUp() async throws {
        try await Self.withPasskeyBroker { broker in
            let auth = broker.client()
            let guest = try await auth.signInAnonymously()
            let changes = auth.sessionChanges
            var phone = try Self.phone()
            let options = try await auth.passkeySignUpOptions(email: "guest@example.com")
            let result = try await auth.signUp(withPasskey: try Self.register(&phone, options), name: "iPhone")
            #expect(result.user.uid == guest.user.uid)
            #expect(!result.isNewUser)
            #expect(!result.user.isAnonymous)
            #expect(result.user.email == "guest@example.com")
            #expect(auth.currentUser == result.user)
            #expect(await take(1, from: changes) == [.userUpdated(result.user)])
            #expect(try await broker.store.account(id: AccountID(guest.user.uid))?.isAnonymous == false)
            #expect(try await broker.store.passkeys(uid: AccountID(guest.user.uid)).count == 1)
            #expect(try await broker.count("accounts") == 1)
        }
    }
}
