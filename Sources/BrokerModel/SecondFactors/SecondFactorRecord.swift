public import Foundation

/// A second factor as stored (contract section 14): an authenticator app's sealed secret, verified or still being
/// enrolled, with the last time step a code of it worked.
public struct SecondFactorRecord: Sendable, Equatable {
    /// The factor's id (its enrolment's id while it is being enrolled).
    public var id: String
    /// The account it belongs to.
    public var uid: AccountID
    /// Its type: `totp`.
    public var type: String
    /// The name its owner gave it.
    public var displayName: String?
    /// The secret, sealed with `BROKER_ENCRYPTION_KEY` (base64); never in clear.
    public var sealedSecret: String
    /// When its enrolment started.
    public var createdAt: Date
    /// When its enrolment was verified; nil while it is pending (it then finishes no sign-in).
    public var enrolledAt: Date?
    /// The last time step a code of it worked (each code works once); nil when none has.
    public var lastUsedStep: Int64?

    /// Creates a record.
    public init(
        id: String, uid: AccountID, type: String = "totp", displayName: String? = nil, sealedSecret: String,
        createdAt: Date, enrolledAt: Date? = nil, lastUsedStep: Int64? = nil
    ) {
        self.id = id
        self.uid = uid
        self.type = type
        self.displayName = displayName
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
        self.enrolledAt = enrolledAt
        self.lastUsedStep = lastUsedStep
    }
}

/// An account's enrolled second factors and the hashes of its unused recovery codes, as `broker admin export
/// --include-secrets` writes them (each secret as stored, sealed) and `broker admin import` restores them.
public struct AccountSecondFactors: Sendable, Equatable {
    /// The enrolled factors, oldest first.
    public var factors: [SecondFactorRecord]
    /// The stored hashes of the unused recovery codes.
    public var recoveryCodeHashes: [String]

    /// Creates an account's set.
    public init(factors: [SecondFactorRecord], recoveryCodeHashes: [String]) {
        self.factors = factors
        self.recoveryCodeHashes = recoveryCodeHashes
    }
}
