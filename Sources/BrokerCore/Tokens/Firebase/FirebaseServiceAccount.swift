import BrokerCrypto
import Foundation

/// A Google service-account key file (`GOOGLE_APPLICATION_CREDENTIALS`), as far as custom tokens need it.
public struct FirebaseServiceAccount: Sendable {
    /// `client_email`: the custom token's `iss` and `sub`.
    public let clientEmail: String
    /// `private_key_id`: the custom token's `kid`.
    public let privateKeyID: String
    /// `private_key`.
    let privateKey: RSAPrivateKey
    /// `project_id`, when the file has one: custom tokens only work for the Firebase project it names.
    public let projectID: String?

    /// Parses the file's JSON. Errors name the field, never its value.
    public init(parsing bytes: [UInt8], field: String = "firebase.serviceAccountFile") throws {
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
        clientEmail = email
        privateKeyID = keyID
        projectID = json["project_id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        privateKey = key
    }

    /// Reads and parses the file at `path`.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: "firebase.serviceAccountFile", "cannot read \(path)")
        }
        try self.init(parsing: Array(data))
    }
}
