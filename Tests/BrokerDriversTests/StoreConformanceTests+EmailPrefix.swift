import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The admin listing's `emailPrefix` filter (contract section 5), on every backend.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func listingByEmailPrefixIsCaseInsensitiveAndTakesPatternCharactersLiterally(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            for (uid, email) in [
                ("a", "Kim.Min@example.com"), ("b", "kim_x@example.com"), ("c", "kimberly@example.com"),
                ("d", "lee@example.com"), ("e", "kim%@example.com"), ("f", "김민@example.kr"),
            ] {
                try await store.create(Self.account(uid, email: email))
            }
            try await store.create(Self.account("g"))  // no email
            func uids(_ prefix: String) async throws -> [String] {
                try await store.listAccounts(filter: AccountFilter(emailPrefix: prefix), after: nil, limit: 10)
                    .map(\.id.rawValue).sorted()
            }
            #expect(try await uids("KIM") == ["a", "b", "c", "e"])
            #expect(try await uids("kim_") == ["b"])
            #expect(try await uids("kim%") == ["e"])
            #expect(try await uids("kim.min@example.com") == ["a"])
            #expect(try await uids("김") == ["f"])
            #expect(try await uids("nobody").isEmpty)
        }
    }
}
