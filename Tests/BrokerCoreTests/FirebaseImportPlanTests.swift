import BrokerCore
import BrokerFirebase
import BrokerModel
import Foundation
import Testing

@Suite struct FirebaseImportPlanTests {
    static let importedAt = Date(timeIntervalSince1970: 1_800_000_000)
    /// What ``FirebaseImportOptions/wellKnownProviders(_:)`` gives for the built-in providers.
    static let wellKnown: [String: ProviderID] = ["google.com": ProviderID("google"), "apple.com": ProviderID("apple")]

    static func readmeHashOptions() throws -> FirebaseHashOptions {
        try FirebaseHashOptions(
            hashAlgo: "SCRYPT",
            hashKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
            saltSeparator: "Bw==", rounds: "8", memCost: "14")
    }

    static func export() throws -> FirebaseExport {
        try FirebaseExport(contentsOf: FirebaseExportTests.fixture("firebase-export.json"))
    }

    @Test func aPasswordUserKeepsItsUidAndItsHashInStoredForm() throws {
        let options = try FirebaseImportOptions(hash: try Self.readmeHashOptions(), providers: Self.wellKnown)
        let plan = try FirebaseImportPlan(try Self.export().user(at: 0), options: options, importedAt: Self.importedAt)
        #expect(plan.account.id == AccountID("kYi4EvWQlQTKSfnJ3dRSP6IH3ed2"))
        #expect(plan.account.email == "user1@test.com")
        #expect(plan.account.identities.isEmpty)  // "password" is the password, not an identity
        #expect(plan.account.createdAt == Date(timeIntervalSince1970: 1_508_893_925))
        #expect(plan.account.lastSignInAt == Date(timeIntervalSince1970: 1_508_893_925))
        #expect(plan.account.password?.isDerived != true)
        let stored = try #require(plan.account.password?.hash)
        let hash = try ImportedPasswordHash(encoded: stored)
        guard case let .firebaseScrypt(key, separator, rounds, memoryCost, salt, bytes) = hash else {
            Issue.record("not a Firebase scrypt hash: \(hash.algorithmName)")
            return
        }
        #expect((rounds, memoryCost, separator) == (8, 14, [7]))
        #expect(key.count == 64 && bytes.count == 64)
        #expect(salt == FirebaseBase64.decode("42xEC+ixf3L2lw=="))
        #expect(plan.otherIdentities.isEmpty && plan.notes.isEmpty)
    }

    @Test func googleAndAppleBecomeIdentitiesAndClaimsCarryOver() throws {
        let plan = try FirebaseImportPlan(
            try Self.export().user(at: 1), options: try FirebaseImportOptions(hash: nil, providers: Self.wellKnown), importedAt: Self.importedAt)
        let linkedAt = Date(timeIntervalSince1970: 1_600_000_000)
        #expect(plan.account.identities == [
            Identity(provider: ProviderID("google"), subject: "109876543210987654321", email: "jane.doe@example.com", linkedAt: linkedAt),
            Identity(provider: ProviderID("apple"), subject: "001234.abcdef0123456789.1234", email: "x7@privaterelay.appleid.com", linkedAt: linkedAt),
        ])
        #expect(plan.account.emailVerified)
        #expect(plan.account.password?.hash == nil)
        #expect(plan.account.customClaims.flatMap { JSONValue.parse(Array($0.utf8)) } == .object(["role": "admin", "tier": 3]))
        #expect(plan.account.photoURL == "https://lh3.googleusercontent.com/a/photo.jpg")
    }

    /// Kakao through Identity Platform's OIDC (`oidc.kakao`), or through Firebase's custom-token sample (`kakao:<id>`).
    @Test func kakaoUsersReachTheirIdentityEitherWay() throws {
        let user = try Self.export().user(at: 2)
        let hash = try Self.readmeHashOptions()
        let kakao = Identity(provider: ProviderID("kakao"), subject: "1234567890", email: nil, linkedAt: Self.importedAt)
        // Mapped from `oidc.kakao`, the identity was linked by an ID token; a uid prefix does not say.
        var viaOIDC = kakao
        viaOIDC.kind = .idToken

        let unmapped = try FirebaseImportPlan(user, options: try FirebaseImportOptions(hash: hash, providers: Self.wellKnown), importedAt: Self.importedAt)
        #expect(unmapped.account.identities.isEmpty)
        #expect(unmapped.otherIdentities.map(\.providerId) == ["oidc.kakao"])
        #expect(unmapped.account.disabled)
        #expect(unmapped.notes.contains("dropped photoUrl (not an http(s) URL)"))

        let mapped = try FirebaseImportPlan(
            user, options: try FirebaseImportOptions(hash: hash, providers: Self.wellKnown, mapProvider: ["oidc.kakao=kakao"]), importedAt: Self.importedAt)
        #expect(mapped.account.identities == [viaOIDC])
        #expect(mapped.otherIdentities.isEmpty)

        let prefixed = try FirebaseImportPlan(
            user, options: try FirebaseImportOptions(hash: hash, providers: Self.wellKnown, linkUIDPrefix: ["kakao:=kakao"]), importedAt: Self.importedAt)
        #expect(prefixed.account.identities == [kakao])
        #expect(prefixed.account.id == AccountID("kakao:1234567890"))  // the uid itself is kept

        let both = try FirebaseImportPlan(
            user, options: try FirebaseImportOptions(hash: hash, providers: Self.wellKnown, mapProvider: ["oidc.kakao=kakao"], linkUIDPrefix: ["kakao:=kakao"]),
            importedAt: Self.importedAt)
        #expect(both.account.identities == [viaOIDC])
    }

    @Test func argon2HashesNeedNoFlagsAndOthersDo() throws {
        let phc = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
        let ours = FirebaseUserRecord(localId: "u1", passwordHash: Array(phc.utf8))
        let plan = try FirebaseImportPlan(ours, options: try FirebaseImportOptions(hash: nil, providers: Self.wellKnown), importedAt: Self.importedAt)
        #expect(plan.account.password?.hash == phc)
        #expect(plan.account.createdAt == Self.importedAt)

        for (bad, code) in [
            ("$argon2id$v=19$m=4194304,t=2,p=1$c29tZXNhbHQ$aGFzaA", ImportedHashError.Code.parameterOutOfRange),  // 4 GiB
            ("$argon2id$v=19$m=19456,t=99,p=1$c29tZXNhbHQ$aGFzaA", .parameterOutOfRange),
            ("$argon2id$v=16$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaA", .hashMismatch),
            ("$argon2id$v=19$m=19456,t=2$c29tZXNhbHQ$aGFzaA", .hashMismatch),
        ] {
            do {
                _ = try FirebaseImportPlan(
                    FirebaseUserRecord(localId: "u", passwordHash: Array(bad.utf8)), options: try FirebaseImportOptions(hash: nil, providers: Self.wellKnown),
                    importedAt: Self.importedAt)
                Issue.record("accepted \(bad)")
            } catch let error as ImportedHashError {
                #expect(error.code == code)
            }
        }

        let firebase = try Self.export().user(at: 0)
        #expect(throws: FirebaseImportPlan.needsHashFlags) {
            try FirebaseImportPlan(firebase, options: try FirebaseImportOptions(hash: nil, providers: Self.wellKnown), importedAt: Self.importedAt)
        }
        // A hash that does not fit the flags refuses that user.
        let short = FirebaseUserRecord(localId: "u2", passwordHash: [1, 2, 3], salt: [4])
        do {
            _ = try FirebaseImportPlan(short, options: try FirebaseImportOptions(hash: try Self.readmeHashOptions(), providers: Self.wellKnown), importedAt: Self.importedAt)
            Issue.record("accepted a 3-byte SCRYPT hash")
        } catch let error as ImportedHashError {
            #expect(error.code == .hashMismatch)
        }
    }

    @Test(arguments: [
        (["oidc.kakao"], [String]()), (["oidc.kakao=Kakao"], []), (["=kakao"], []), (["password=kakao"], []),
        (["oidc.kakao=kakao", "oidc.kakao=line"], []), ([], ["kakao:"]), ([], ["kakao:=kakao", "kakao:=line"]),
        ([], ["kakao:=" + String(repeating: "k", count: 33)]),
    ])
    func badMappingFlagsAreRefused(mapProvider: [String], linkUIDPrefix: [String]) {
        do {
            _ = try FirebaseImportOptions(hash: nil, providers: Self.wellKnown, mapProvider: mapProvider, linkUIDPrefix: linkUIDPrefix)
            Issue.record("accepted \(mapProvider) \(linkUIDPrefix)")
        } catch let error as ImportedHashError {
            #expect(error.code == .parameterOutOfRange)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func mappingFlagsExtendTheDefaults() throws {
        let options = try FirebaseImportOptions(hash: nil, providers: Self.wellKnown, mapProvider: ["oidc.kakao=kakao", "oidc.line=line"], linkUIDPrefix: ["kakao:=kakao"])
        #expect(options.providerMap == [
            "google.com": ProviderID("google"), "apple.com": ProviderID("apple"), "oidc.kakao": ProviderID("kakao"),
            "oidc.line": ProviderID("line"),
        ])
        #expect(options.uidPrefixLinks == [FirebaseImportOptions.UIDPrefixLink(prefix: "kakao:", provider: ProviderID("kakao"))])
    }
}
