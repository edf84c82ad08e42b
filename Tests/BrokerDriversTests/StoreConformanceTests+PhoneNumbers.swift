import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Schema version 12: an account's phone number (unique, looked up exactly) and the uid-ordered listing of
/// ``AccountQuerying``, on every backend.
extension StoreConformanceTests {
    static func phoneAccount(_ uid: String, phone: String?, email: String? = nil) -> Account {
        var account = account(uid, email: email)
        account.phoneNumber = phone
        return account
    }

    @Test(arguments: StoreBackend.enabled)
    func aPhoneNumberIsStoredFoundAndChanged(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.phoneAccount("alice", phone: "+15551230001", email: "alice@example.com")
            try await store.create(alice)
            #expect(try await store.account(id: alice.id) == alice)
            #expect(try await store.account(phoneNumber: "+15551230001") == alice)
            #expect(try await store.account(phoneNumber: "+15551230002") == nil)

            let moved = try await store.update(id: alice.id) { $0.phoneNumber = "+15551230002" }
            #expect(moved.phoneNumber == "+15551230002")
            #expect(try await store.account(phoneNumber: "+15551230001") == nil)
            #expect(try await store.account(phoneNumber: "+15551230002")?.id == alice.id)

            let cleared = try await store.update(id: alice.id) { $0.phoneNumber = nil }
            #expect(cleared.phoneNumber == nil)
            #expect(try await store.account(phoneNumber: "+15551230002") == nil)
            #expect(try await store.account(id: alice.id)?.phoneNumber == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aTakenPhoneNumberRefusesCreateUpdateAndImportAndStoresNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.phoneAccount("alice", phone: "+15551230001")
            try await store.create(alice)
            // Accounts without a number do not clash with one another.
            try await store.create(Self.phoneAccount("nophone1", phone: nil))
            try await store.create(Self.phoneAccount("nophone2", phone: nil))

            await expectStoreError(.alreadyExists) {
                try await store.create(Self.phoneAccount("bob", phone: "+15551230001", email: "bob@example.com"))
            }
            #expect(try await store.account(id: AccountID("bob")) == nil)
            #expect(try await store.account(email: "bob@example.com") == nil)

            await expectStoreError(.alreadyExists) {
                _ = try await store.update(id: AccountID("nophone1")) { $0.phoneNumber = "+15551230001" }
            }
            #expect(try await store.account(id: AccountID("nophone1"))?.phoneNumber == nil)

            let outcomes = try await store.importAccounts([
                Self.phoneAccount("carol", phone: "+15551230001"), Self.phoneAccount("dave", phone: "+15551230009"),
            ])
            #expect(outcomes == [.phoneNumberTaken, .imported])
            #expect(try await store.account(id: AccountID("carol")) == nil)
            #expect(try await store.account(phoneNumber: "+15551230009")?.id == AccountID("dave"))
            #expect(try await store.account(phoneNumber: "+15551230001") == alice)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func deletingAnAccountFreesItsPhoneNumber(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.phoneAccount("alice", phone: "+15551230001"))
            try await store.delete(id: AccountID("alice"))
            #expect(try await store.account(phoneNumber: "+15551230001") == nil)
            let bob = Self.phoneAccount("bob", phone: "+15551230001")
            try await store.create(bob)
            #expect(try await store.account(phoneNumber: "+15551230001") == bob)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func accountsListInUIDByteOrderPageByPage(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            // Mixed case and digits: byte order puts digits, then upper case, then lower case.
            let uids = ["b", "B", "a", "A", "1", "aa", "Z"]
            for (offset, uid) in uids.enumerated() {
                var account = Self.account(uid)
                account.createdAt = date(ms: Self.t0 - Int64(offset))
                try await store.create(account)
            }
            let expected = ["1", "A", "B", "Z", "a", "aa", "b"]
            #expect(try await store.listAccounts(afterUID: nil, limit: 100).map(\.id.rawValue) == expected)
            var seen: [String] = []
            var after: AccountID?
            for _ in 0..<10 {
                let page = try await store.listAccounts(afterUID: after, limit: 3)
                seen += page.map(\.id.rawValue)
                guard page.count == 3, let last = page.last else { break }
                after = last.id
            }
            #expect(seen == expected)
            #expect(try await store.listAccounts(afterUID: AccountID("b"), limit: 3).isEmpty)
            #expect(try await store.listAccounts(afterUID: AccountID("Aa"), limit: 2).map(\.id.rawValue) == ["B", "Z"])
            #expect(try await store.listAccounts(afterUID: nil, limit: 0).isEmpty)
        }
    }
}
