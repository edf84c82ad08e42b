import BrokerCore
import BrokerHTTP
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// `GET /readyz` on any store: ready while the database answers, 503 `STORAGE_UNAVAILABLE` (with
/// `Retry-After`) once it does not, while `/healthz` and the published keys keep answering.
/// (The PostgreSQL outage itself is in ``PostgresOutageTests``.)
@Suite struct ReadinessTests {
    @Test func readyWhileTheDatabaseAnswersNotReadyOnceItIsGone() async throws {
        try await withBroker { broker in
            let ready = try await broker.get("/readyz")
            #expect(ready.status == 200)
            #expect(ready.json?["status"] == "ready")

            await broker.store.database.close()

            let notReady = try await broker.get("/readyz")
            #expect(notReady.status == 503)
            #expect(notReady.errorCode == "STORAGE_UNAVAILABLE")
            #expect(notReady.headers["retry-after"] == String(APIError.retryAfterSeconds))
            #expect(try await broker.get("/healthz").status == 200)
            let jwks = try await broker.get("/.well-known/jwks.json")
            #expect(jwks.status == 200)
            #expect(jwks.json?["keys"]?.arrayValue?.isEmpty == false)
            let signIn = try await broker.googleSignIn(["sub": "g-after-close"])
            #expect(signIn.status == 503)
            #expect(signIn.errorCode == "STORAGE_UNAVAILABLE")
        }
    }
}
