import BrokerCore
import BrokerFirebase
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The import's phone numbers (schema version 12): kept, unique across the file and the store.
extension FirebaseImporterTests {
    @Test(arguments: StoreBackend.enabled)
    func phoneNumbersAreImportedAndARepeatedOrTakenOneRefusesItsUser(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            var holder = Account(id: AccountID("holder"), createdAt: Date(timeIntervalSince1970: 1_700_000_000))
            holder.phoneNumber = "+15551230009"
            try await store.create(holder)
            let export = try Self.export([
                #"{"localId": "p1", "phoneNumber": "+15551230001"}"#,
                #"{"localId": "p2", "phoneNumber": "+15551230001"}"#,
                #"{"localId": "p3", "phoneNumber": "+15551230009"}"#,
                #"{"localId": "p4", "phoneNumber": "not a number"}"#,
            ])
            let report = try await Self.importer(store, clock: fixture.clock, hash: false).run(export)
            #expect(report.imported == 2)
            #expect(report.failed.map(\.index) == [1, 2])
            #expect(report.failed.map { $0.reason.split(separator: ":").first.map(String.init) ?? "" } == [
                "DUPLICATE_PHONE_NUMBER", "PHONE_NUMBER_EXISTS",
            ])
            #expect(try await store.account(phoneNumber: "+15551230001")?.id == AccountID("p1"))
            #expect(try await store.account(phoneNumber: "+15551230009")?.id == AccountID("holder"))
            for uid in ["p2", "p3"] { #expect(try await store.account(id: AccountID(uid)) == nil) }
            // A number that is not E.164 is dropped, never a reason to refuse the user.
            #expect(try await store.account(id: AccountID("p4"))?.phoneNumber == nil)
        }
    }
}
