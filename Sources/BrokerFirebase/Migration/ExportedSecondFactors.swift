import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
public import Foundation

/// An account's second factors in the broker's extension field ``FirebaseUserRecord/secondFactorsField`` of an
/// export (contract sections 8 and 14): each factor's id, type, display name and enrolment time, and the number of
/// unused recovery codes; with `broker admin export --include-secrets` also each factor's secret exactly as stored
/// (sealed with `BROKER_ENCRYPTION_KEY`, bound to the uid and the factor id) with its last used time step, and the
/// recovery codes' hashes, sealed with the same key. Nothing in the field is ever in clear: an import into a broker
/// with the same key restores working factors; without the secrets the factors are not imported (a Firebase
/// export never carries second factors either), and the import says how many it left out.
///
/// ```json
/// "brokerSecondFactors": {"factors": [{"factorId": "…", "type": "totp", "displayName": "Phone",
///   "enrolledAt": "1700000000000", "sealedSecret": "…", "lastUsedStep": 56666666}],
///   "recoveryCodesLeft": 10, "sealedRecoveryCodes": "…"}
/// ```
public struct ExportedSecondFactors: Sendable, Equatable {
    /// One exported factor.
    public struct Factor: Sendable, Equatable {
        /// The factor's id, kept.
        public var id: String
        /// Its type (`totp`).
        public var type: String
        /// The name its owner gave it.
        public var displayName: String?
        /// When it was enrolled.
        public var enrolledAt: Date
        /// The secret as stored, sealed; nil when exported without `--include-secrets`.
        public var sealedSecret: String?
        /// The time step of the last code that worked (so a code works once across the move).
        public var lastUsedStep: Int64?
    }

    /// The factors.
    public var factors: [Factor]
    /// Unused recovery codes when exported.
    public var recoveryCodesLeft: Int
    /// The recovery codes' hashes (a JSON array), sealed; nil without `--include-secrets`.
    public var sealedRecoveryCodes: String?

    /// The most factors an account's field may hold.
    static let maximumFactors = 16

    /// The associated data the recovery codes' hashes of `uid` are sealed with in an export.
    static func recoveryCodesContext(_ uid: AccountID) -> String { "exported-recovery-codes:\(uid.rawValue)" }

    // MARK: - Export

    /// The field for `set`, the factors of `uid`; `secrets`, for `--include-secrets`, is the key the recovery
    /// codes' hashes are sealed with (the factors' secrets are written as stored, sealed already).
    static func json(_ set: AccountSecondFactors, uid: AccountID, secrets: OutboxCipher?) throws -> JSONValue {
        let factors: [JSONValue] = set.factors.map { factor in
            var entry: [String: JSONValue] = [
                "factorId": .string(factor.id), "type": .string(factor.type),
                "enrolledAt": .string(String((factor.enrolledAt ?? factor.createdAt).epochMilliseconds)),
            ]
            if let name = factor.displayName { entry["displayName"] = .string(name) }
            if secrets != nil {
                entry["sealedSecret"] = .string(factor.sealedSecret)
                if let step = factor.lastUsedStep { entry["lastUsedStep"] = .int(step) }
            }
            return .object(entry)
        }
        var field: [String: JSONValue] = [
            "factors": .array(factors), "recoveryCodesLeft": .int(Int64(set.recoveryCodeHashes.count)),
        ]
        if let secrets {
            let hashes = JSONValue.array(set.recoveryCodeHashes.map(JSONValue.string)).serialized()
            field["sealedRecoveryCodes"] = .string(
                try secrets.seal(String(decoding: hashes, as: UTF8.self), context: recoveryCodesContext(uid)))
        }
        return .object(field)
    }

    // MARK: - Import

    /// Decodes the field; ``FirebaseUserError/Code/invalidField`` naming it when it is not one.
    init(json: JSONValue) throws {
        let field = FirebaseUserRecord.secondFactorsField
        func invalid(_ detail: String = "") -> FirebaseUserError {
            FirebaseUserError(.invalidField, detail.isEmpty ? field : "\(field).\(detail)")
        }
        guard let members = json.objectValue, let entries = members["factors"]?.arrayValue,
            entries.count <= Self.maximumFactors
        else { throw invalid() }
        factors = try entries.map { entry in
            guard let id = entry["factorId"]?.stringValue, (1...64).contains(id.utf8.count),
                id.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else { throw invalid("factorId") }
            guard entry["type"]?.stringValue == "totp" else { throw invalid("type") }
            guard let text = entry["enrolledAt"]?.stringValue, text.utf8.count <= 15, let millis = Int64(text),
                millis >= 0
            else { throw invalid("enrolledAt") }
            let name = entry["displayName"]?.stringValue
            guard name.map({ $0.utf8.count <= 256 }) ?? true else { throw invalid("displayName") }
            let sealed = entry["sealedSecret"]?.stringValue
            guard sealed.map({ $0.utf8.count <= 1024 }) ?? true else { throw invalid("sealedSecret") }
            return Factor(
                id: id, type: "totp", displayName: name?.isEmpty == true ? nil : name,
                enrolledAt: Date(timeIntervalSince1970: Double(millis) / 1000), sealedSecret: sealed,
                lastUsedStep: entry["lastUsedStep"]?.intValue)
        }
        guard let left = members["recoveryCodesLeft"]?.intValue, (0...1000).contains(left) else {
            throw invalid("recoveryCodesLeft")
        }
        recoveryCodesLeft = Int(left)
        sealedRecoveryCodes = members["sealedRecoveryCodes"]?.stringValue
        guard sealedRecoveryCodes.map({ $0.utf8.count <= 64 * 1024 }) ?? true else {
            throw invalid("sealedRecoveryCodes")
        }
    }

    /// The factors an import of `uid` restores: those exported with their secret, opened with `cipher` to check
    /// that they work under this broker's key (stored as exported, sealed), and the recovery codes' hashes with
    /// them; nil when none was exported with its secret. Throws ``FirebaseImportPlan/needsEncryptionKey`` without a
    /// key, and ``FirebaseUserError`` when a secret does not open with it (sealed under another key).
    func restored(uid: AccountID, cipher: OutboxCipher?) throws -> AccountSecondFactors? {
        let sealed = factors.filter { $0.sealedSecret != nil }
        guard !sealed.isEmpty else { return nil }
        guard let cipher else { throw FirebaseImportPlan.needsEncryptionKey }
        let field = FirebaseUserRecord.secondFactorsField
        let records = try sealed.map { factor in
            let box = factor.sealedSecret ?? ""
            guard let secret = try? cipher.open(box, context: SecondFactorService.sealingContext(uid, factor.id)),
                Base32.decode(secret) != nil
            else { throw FirebaseUserError(.invalidField, "\(field) (a secret not sealed with this key)") }
            return SecondFactorRecord(
                id: factor.id, uid: uid, type: factor.type, displayName: factor.displayName, sealedSecret: box,
                createdAt: factor.enrolledAt, enrolledAt: factor.enrolledAt, lastUsedStep: factor.lastUsedStep)
        }
        var hashes: [String] = []
        if let box = sealedRecoveryCodes {
            guard let text = try? cipher.open(box, context: Self.recoveryCodesContext(uid)),
                let values = JSONValue.parse(Array(text.utf8))?.arrayValue, values.count <= 1000
            else { throw FirebaseUserError(.invalidField, "\(field) (recovery codes not sealed with this key)") }
            hashes = try values.map { value in
                guard let hash = value.stringValue, hash.utf8.count == 64,
                    hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
                else { throw FirebaseUserError(.invalidField, "\(field).sealedRecoveryCodes") }
                return hash
            }
        }
        return AccountSecondFactors(factors: records, recoveryCodeHashes: hashes)
    }

    /// The factors exported without their secret, which an import leaves out.
    var withoutSecrets: Int { factors.count(where: { $0.sealedSecret == nil }) }
}
