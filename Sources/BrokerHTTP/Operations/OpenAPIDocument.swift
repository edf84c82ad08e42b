import BrokerCore
/// The OpenAPI 3.1 document of the broker's routes (native, admin, operations), served at `GET /openapi.json`.
///
/// `openapi.json` beside this file is the source of truth; `scripts/embed-openapi` copies it into
/// `OpenAPIDocument+JSON.swift` (a string literal, so no resource bundle has to be found at run time), and a test
/// checks that the served bytes equal the file's.
public enum OpenAPIDocument {
    /// The document's bytes, exactly as `openapi.json` holds them.
    public static let bytes: [UInt8] = Array(json.utf8)
}
