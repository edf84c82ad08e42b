import BrokerCore
import BrokerIdentity
public import BrokerModel
public import Foundation

/// What importing one user of a Firebase export would write (contract section 8), decided without the
/// store: the account (uid kept, identities mapped, the password hash in its stored form), the identities
/// of other providers (kept, shown to admins, never used to sign in), and what was dropped.
///
/// The store-side rules (a user already present is unchanged; an email or identity of another uid refuses
/// the user) are the import command's, and so is the account's origin (`import`) unless the broker's own
/// export named another (``FirebaseUserRecord/origin``).
public struct FirebaseImportPlan: Sendable, Equatable {
    /// The account to create: uid = `localId`.
    public var account: Account
    /// `providerUserInfo` entries of providers the broker does not sign in with (not `password`, not mapped).
    public var otherIdentities: [FirebaseProviderUserInfo]
    /// What was dropped or ignored, from decoding and planning, for the report.
    public var notes: [String]
    /// The second factors to restore with the account (exported with `--include-secrets`), if any.
    public var secondFactors: AccountSecondFactors?
    /// Second factors exported without their secrets: not imported (the account signs in with its first factor
    /// until its owner enrols again), counted in the import's report.
    public var secondFactorsLeftOut: Int

    /// Plans the import of `record` at `importedAt` (the time used when the export has no `createdAt`, and
    /// for identities' `linkedAt`).
    ///
    /// Throws ``FirebaseImportPlan/needsHashFlags`` (a file-level error: exit status 2, nothing written) when
    /// the user has a password hash that is not an `$argon2id$` PHC string and no `--hash-algo` was given;
    /// ``ImportedHashError`` when the hash does not fit the flags (that user is refused). Second factors exported
    /// with their secrets need `cipher`, the broker's key (``needsEncryptionKey``, a file-level error, without one);
    /// a secret that does not open with it refuses the user (``FirebaseUserError``).
    public init(
        _ record: FirebaseUserRecord, options: FirebaseImportOptions, importedAt: Date, cipher: OutboxCipher? = nil
    ) throws {
        let linkedAt = record.createdAt ?? importedAt
        var identities: [Identity] = []
        var others: [FirebaseProviderUserInfo] = []
        var notes = record.notes
        for info in record.providerUserInfo where info.providerId != "password" {
            // The broker's own export names the provider; otherwise Firebase's id is mapped, or kept for admins.
            guard let provider = info.brokerProvider ?? options.providerMap[info.providerId] else {
                others.append(info)
                continue
            }
            guard !identities.contains(where: { $0.provider == provider && $0.subject == info.rawId }) else { continue }
            if identities.contains(where: { $0.provider == provider }) {
                notes.append("dropped a second \(info.providerId) identity")
                continue
            }
            // The broker's own export says the kind (or that it was not known); otherwise `oidc.<id>` was linked by
            // an ID token, `<id>` by an access token, and another name does not say.
            let kind =
                info.brokerProvider != nil
                ? info.credentialKind
                : ProviderRegistry.credentialKind(firebaseName: info.providerId, provider: provider)
            identities.append(
                Identity(
                    provider: provider, subject: info.rawId, email: info.email, linkedAt: info.linkedAt ?? linkedAt,
                    kind: kind))
        }
        for link in options.uidPrefixLinks where record.localId.hasPrefix(link.prefix) {
            let subject = String(record.localId.dropFirst(link.prefix.count))
            guard !subject.isEmpty, !identities.contains(where: { $0.provider == link.provider }) else { continue }
            identities.append(Identity(provider: link.provider, subject: subject, email: nil, linkedAt: linkedAt))
            break
        }
        var phoneNumber = record.phoneNumber
        if let phone = phoneNumber, !PhoneNumber.isValid(phone) {
            notes.append("dropped a phoneNumber that is not E.164")
            phoneNumber = nil
        }
        account = Account(
            id: AccountID(record.localId), email: record.email, emailVerified: record.emailVerified,
            displayName: record.displayName, photoURL: record.photoURL, disabled: record.disabled,
            createdAt: record.createdAt ?? importedAt, lastSignInAt: record.lastSignedInAt, identities: identities,
            password: try Self.storedHash(record, options: options).map(PasswordCredential.chosen), customClaims: record.customAttributes,
            origin: record.origin, phoneNumber: phoneNumber)
        otherIdentities = others
        self.notes = notes
        secondFactors = try record.secondFactors?.restored(uid: account.id, cipher: cipher)
        secondFactorsLeftOut = record.secondFactors?.withoutSecrets ?? 0
    }

    /// The file has second factors exported with their secrets, and no `BROKER_ENCRYPTION_KEY` (the key they were
    /// sealed with) is set: nothing is imported.
    public static let needsEncryptionKey = ImportedHashError(
        .missingParameter,
        "second factors exported with --include-secrets need BROKER_ENCRYPTION_KEY, the key they "
            + "were sealed with")

    /// The user has a password hash that needs `--hash-algo` (and its parameters) to be imported.
    public static let needsHashFlags = ImportedHashError(
        .missingParameter, "password hashes other than $argon2id$ PHC strings need --hash-algo and its parameters")

    /// The most memory (KiB), passes and lanes an imported Argon2id hash may ask of a sign-in.
    static let argon2Bounds = (memoryKiB: 65_536, passes: 16, lanes: 8)

    /// Refuses an Argon2id PHC string that is not `$argon2id$v=19$m=M,t=T,p=P$salt$hash` with M, T and P
    /// within ``argon2Bounds``: libargon2 would otherwise allocate whatever M says at each sign-in.
    static func checkArgon2(_ text: String) throws {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard text.utf8.count <= 512, parts.count == 6, parts[1] == "argon2id", parts[2] == "v=19" else {
            throw ImportedHashError(.hashMismatch, "not an Argon2id PHC string")
        }
        var values: [Substring: Int] = [:]
        for pair in parts[3].split(separator: ",") {
            let halves = pair.split(separator: "=", maxSplits: 1)
            guard halves.count == 2, halves[1].utf8.count <= 9, let value = Int(halves[1]) else {
                throw ImportedHashError(.hashMismatch, "not an Argon2id PHC string")
            }
            values[halves[0]] = value
        }
        guard values.count == 3, let memory = values["m"], let passes = values["t"], let lanes = values["p"] else {
            throw ImportedHashError(.hashMismatch, "not an Argon2id PHC string")
        }
        guard (1...argon2Bounds.memoryKiB).contains(memory), (1...argon2Bounds.passes).contains(passes),
            (1...argon2Bounds.lanes).contains(lanes)
        else { throw ImportedHashError(.parameterOutOfRange, "Argon2id m, t or p above 64 MiB, 16, 8") }
    }

    private static func storedHash(_ record: FirebaseUserRecord, options: FirebaseImportOptions) throws -> String? {
        guard let bytes = record.passwordHash, !bytes.isEmpty else { return nil }
        // The broker's own export writes an Argon2id hash as the base64 of its PHC string, with no salt.
        if let text = String(validating: bytes, as: UTF8.self), text.hasPrefix("$argon2id$") {
            try checkArgon2(text)
            return text
        }
        // The broker's export gives a not-yet-upgraded hash its own parameters: no flags needed, none used.
        if let exported = record.hashConfig {
            return try exported.importedHash(passwordHash: bytes, salt: record.salt ?? []).encoded
        }
        guard let hash = options.hash else { throw needsHashFlags }
        return try hash.importedHash(passwordHash: bytes, salt: record.salt ?? []).encoded
    }
}
