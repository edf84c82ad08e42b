import BrokerCore
import BrokerStorage
import BrokerTesting
import BrokerDrivers
import Foundation

/// A schema of its own in the database of `BROKER_TEST_POSTGRES_URL` (see `scripts/with-postgres.sh`), so
/// tests running in parallel never see each other's tables.
struct PostgresTestSchema: Sendable {
    /// The schema's name, `t_<32 hex digits>`.
    let name: String
    /// The test database's URL, without the schema.
    let baseURL: String

    /// The URL whose transactions use the schema: the broker's `searchPath` parameter sets their `search_path`
    /// (`SET LOCAL`, so it works through a transaction-pooling PgBouncer too).
    var url: String { Self.url(baseURL, schema: name) }

    static func url(_ base: String, schema: String) -> String {
        base + (base.contains("?") ? "&" : "?") + "searchPath=" + schema
    }

    /// Creates a new, empty schema in the database at `base` (`BROKER_TEST_POSTGRES_URL` by default).
    static func create(in base: String? = StoreBackend.postgresURL) async throws -> PostgresTestSchema {
        guard let base else { throw NoPostgres() }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await administer(base) { try $0.execute("CREATE SCHEMA \(name)", []) }
        return PostgresTestSchema(name: name, baseURL: base)
    }

    /// Drops the schema and everything in it.
    func drop() async {
        _ = try? await Self.administer(baseURL) { try $0.execute("DROP SCHEMA IF EXISTS \(name) CASCADE", []) }
    }

    /// Runs `body` in a write transaction on a one-connection database for `url`.
    @discardableResult
    static func administer<T: Sendable>(
        _ url: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws -> T {
        try await PostgresAdministration.run(url, body)
    }

    struct NoPostgres: Error, CustomStringConvertible {
        var description: String { "BROKER_TEST_POSTGRES_URL is not set" }
    }
}
