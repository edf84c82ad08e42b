import BrokerCore
import BrokerDrivers
public import BrokerStorage

/// Administrative SQL for PostgreSQL tests (creating and dropping schemas, counting rows), outside any store.
public enum PostgresAdministration {
    /// Runs `body` in a write transaction on a one-connection database for `url`, then closes it.
    @discardableResult
    public static func run<T: Sendable>(
        _ url: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws -> T {
        let database = try PostgresDatabase(url: url, poolSize: 1)
        do {
            let result = try await database.write(body)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }
}
