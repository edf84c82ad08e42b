import BrokerCore
import BrokerCrypto
public import BrokerModel
import Foundation

/// A Firebase service-account key file (``FirebaseEndpoints/credentialsVariable``), as far as custom tokens and
/// the admin API need it.
public struct FirebaseServiceAccount: Sendable {
    /// `client_email`: the custom token's `iss` and `sub`.
    public let clientEmail: String
    /// `private_key_id`: the custom token's `kid`.
    public let privateKeyID: KeyID
    /// `private_key`.
    let privateKey: RSAPrivateKey
    /// `token_uri`: where an access token for the admin API is asked for (JWT-bearer grant).
    public let tokenURI: String
    /// `project_id`, when the file has one: custom tokens only work for the Firebase project it names.
    public let projectID: String?

    /// Parses the file's JSON. Errors name the field, never its value.
    /// `token_uri` must be `https://` unless `allowInsecureURLs` (stubs in tests).
    public init(parsing bytes: [UInt8], field: String = "firebase.serviceAccountFile", allowInsecureURLs: Bool = false) throws {
        guard let json = JSONValue.parse(bytes)?.objectValue else {
            throw ConfigError(field: field, "is not a service-account JSON file")
        }
        guard json["type"]?.stringValue == "service_account" else {
            throw ConfigError(field: field, "\"type\" must be \"service_account\"")
        }
        guard let email = json["client_email"]?.stringValue, !email.isEmpty else {
            throw ConfigError(field: field, "client_email is missing")
        }
        guard let keyID = json["private_key_id"]?.stringValue, !keyID.isEmpty else {
            throw ConfigError(field: field, "private_key_id is missing")
        }
        guard let pem = json["private_key"]?.stringValue, let key = try? RSAPrivateKey(pem: pem) else {
            throw ConfigError(field: field, "private_key is missing or not an RSA private key")
        }
        let tokenURI = json["token_uri"]?.stringValue ?? FirebaseEndpoints.defaultTokenURI
        guard let components = URLComponents(string: tokenURI), let scheme = components.scheme?.lowercased(),
            scheme == "https" || (allowInsecureURLs && scheme == "http"), components.host?.isEmpty == false
        else {
            throw ConfigError(
                field: field, "token_uri must be an https:// URL\(allowInsecureURLs ? " (or http://)" : "")")
        }
        clientEmail = email
        privateKeyID = KeyID(rawValue: keyID)
        projectID = json["project_id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        privateKey = key
        self.tokenURI = tokenURI
    }

    /// Reads and parses the file at `path`.
    public init(contentsOf path: String, allowInsecureURLs: Bool = false) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: "firebase.serviceAccountFile", "cannot read \(path)")
        }
        try self.init(parsing: Array(data), allowInsecureURLs: allowInsecureURLs)
    }
}
