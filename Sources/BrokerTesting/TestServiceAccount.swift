import BrokerCore
public import BrokerCrypto
public import BrokerModel
public import Foundation

/// A made-up Firebase service account for tests and the demo: a real RSA key, fake names.
public enum TestServiceAccount {
    /// The `client_email`.
    public static let clientEmail = "firebase-adminsdk-test@stub-project.iam.gserviceaccount.com"
    /// The `private_key_id`.
    public static let privateKeyID = "stub-service-account-key-1"

    /// The service account's key (shared within a test process).
    public static func key() throws -> RSAPrivateKey { try StubKeySet.strangerKey(5) }

    /// The JSON file's contents, as Google's console writes it; `tokenURI` replaces the real token endpoint
    /// (the stubs' ``StubFirebase/tokenPath`` in tests).
    public static func json(tokenURI: String = "https://oauth2.googleapis.com/token") throws -> JSONValue {
        [
            "type": "service_account", "project_id": "stub-project", "private_key_id": .string(privateKeyID),
            "private_key": .string(try key().pemPKCS8()), "client_email": .string(clientEmail),
            "client_id": "100000000000000000000", "token_uri": .string(tokenURI),
        ]
    }

    /// Writes the file into `directory` and returns its path.
    public static func write(into directory: URL, tokenURI: String = "https://oauth2.googleapis.com/token") throws -> String {
        let url = directory.appendingPathComponent("service-account.json")
        try Data(try json(tokenURI: tokenURI).serialized()).write(to: url)
        return url.path
    }
}
