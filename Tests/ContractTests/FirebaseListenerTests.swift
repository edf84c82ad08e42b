import BrokerCore
import BrokerTesting
import Foundation
import Testing

/// The Firebase-compatible listener live (contract section 11): its own loopback port, serving only the Firebase
/// surface, with the `Host` check, over real sockets.
@Suite struct FirebaseListenerTests {
    static func withFirebase(_ body: (BrokerHarness, String) async throws -> Void) async throws {
        let harness = try await BrokerHarness.start(firebase: true)
        do {
            try await body(harness, try #require(harness.firebaseURL))
            await harness.stop()
        } catch {
            await harness.stop()
            throw error
        }
    }

    @Test func theFirebaseListenerIsItsOwnPortAndServesNothingElse() async throws {
        try await Self.withFirebase { broker, firebaseURL in
            #expect(firebaseURL != broker.baseURL)
            #expect(firebaseURL.hasPrefix("http://127.0.0.1:"))
            for path in ["/healthz", "/v1/signup", "/admin/v1/users", "/.well-known/jwks.json"] {
                let response = try await broker.firebase("GET", path)
                #expect(response.status == 404, "\(path)")
                #expect(response.json?["error"]?["code"]?.intValue == 404)
            }
            // The main listener does not serve Firebase paths.
            let onMain = try await broker.post(
                FirebaseEndpoints.identityToolkitPath + "/accounts:signUp?key=k",
                ["email": "live@example.com", "password": "secret-pass"])
            #expect(onMain.status == 404)
            #expect(onMain.errorCode == "NOT_FOUND")
            #expect(try await broker.count("accounts") == 0)
        }
    }
}
