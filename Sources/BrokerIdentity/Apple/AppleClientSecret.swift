import BrokerCrypto
import BrokerModel
import Foundation

/// The client secret Sign in with Apple's token and revoke endpoints take: an ES256 JWT signed with the
/// developer's Sign in with Apple key (`.p8`), header `kid` = key id, claims `iss` = team id, `sub` = client id,
/// `aud` = `https://appleid.apple.com`, `iat` and `exp` (Apple allows at most 6 months; the broker mints one for
/// a day). Minted on first use and cached until an hour before it expires.
///
/// `@unchecked Sendable`: `cached` is guarded by `lock`; the rest is immutable.
final class AppleClientSecret: @unchecked Sendable {
    /// The `aud` Apple requires.
    static let audience = "https://appleid.apple.com"
    /// How long a minted secret is valid.
    static let lifetime: TimeInterval = 86_400
    /// How long before its expiry a cached secret is replaced.
    static let renewBefore: TimeInterval = 3600

    let teamID: String
    let keyID: KeyID
    /// The Services ID or bundle id the code was issued to (`client_id`).
    let clientID: String
    private let key: P256PrivateKey
    private let clock: any Clock
    private let lock = NSLock()
    private var cached: (secret: String, expiresAt: Date)?

    init(teamID: String, keyID: KeyID, clientID: String, key: P256PrivateKey, clock: any Clock) {
        self.teamID = teamID
        self.keyID = keyID
        self.clientID = clientID
        self.key = key
        self.clock = clock
    }

    /// The current secret, minting a new one when none is cached or it is near its expiry.
    func current() throws -> String {
        let now = clock.now
        if let cached = lock.withLock({ self.cached }), cached.expiresAt - Self.renewBefore > now { return cached.secret }
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let expiry = issued + Int64(Self.lifetime)
        let secret = try JWT.encode(
            header: ["alg": "ES256", "kid": .string(keyID.rawValue), "typ": "JWT"],
            claims: [
                "iss": .string(teamID), "sub": .string(clientID), "aud": .string(Self.audience), "iat": .int(issued),
                "exp": .int(expiry),
            ],
            sign: key.signSHA256)
        lock.withLock { cached = (secret, Date(timeIntervalSince1970: TimeInterval(expiry))) }
        return secret
    }

    /// Reads the `clientSecret` object of the apple entry: `teamId` and `keyId` (Apple's 10-character ids),
    /// `clientId`, and `privateKeyFile` (the `.p8` PEM of a P-256 key). Messages never hold the key.
    static func make(_ config: ConfigReader, clock: any Clock) throws -> AppleClientSecret {
        try config.allowOnly(["teamId", "keyId", "privateKeyFile", "clientId"])
        func appleID(_ name: String) throws -> String {
            let value = try config.string(name)
            guard value.utf8.count == 10,
                value.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) })
            else { throw ConfigError(field: config.field(name), "must be Apple's 10-character id (A-Z, 0-9)") }
            return value
        }
        let teamID = try appleID("teamId")
        let keyID = try appleID("keyId")
        let clientID = try config.string("clientId")
        guard clientID.utf8.count <= 255, !clientID.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw ConfigError(field: config.field("clientId"), "must be the Services ID or bundle id (no spaces)")
        }
        let path = try config.string("privateKeyFile")
        guard let data = FileManager.default.contents(atPath: path), data.count <= 16 * 1024 else {
            throw ConfigError(field: config.field("privateKeyFile"), "cannot read \(path) (or it is over 16 KiB)")
        }
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw ConfigError(
                field: config.field("privateKeyFile"), "must hold the Sign in with Apple key (.p8: a P-256 private key)")
        }
        return AppleClientSecret(teamID: teamID, keyID: KeyID(rawValue: keyID), clientID: clientID, key: key, clock: clock)
    }
}
