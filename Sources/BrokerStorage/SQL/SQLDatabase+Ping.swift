/// Whether a ``SQLDatabase`` answers.
extension SQLDatabase {
    /// Returns when the database answers a trivial query (`SELECT 1`) through the same path requests take;
    /// throws the driver's error otherwise (`SQLError(.unavailable)` while PostgreSQL is down).
    public func ping() async throws {
        _ = try await read { connection in try connection.query("SELECT 1 AS ok", []) }
    }
}
