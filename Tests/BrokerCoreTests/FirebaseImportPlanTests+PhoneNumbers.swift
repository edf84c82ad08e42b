import BrokerCore
import BrokerFirebase
import BrokerModel
import Foundation
import Testing

/// An export's `phoneNumber` (schema version 12): kept when E.164, dropped and noted otherwise.
extension FirebaseImportPlanTests {
    @Test(arguments: [
        ("+15551234567", "+15551234567"), ("+821012345678", "+821012345678"), ("5551234567", nil), ("+0123456", nil),
        ("+1 555 123", nil), ("+1234567890123456", nil), ("+1", nil),
    ])
    func aPhoneNumberIsKeptOnlyWhenE164(given: String, kept: String?) throws {
        let record = FirebaseUserRecord(localId: "phone-user", phoneNumber: given)
        let plan = try FirebaseImportPlan(record, options: try FirebaseImportOptions(hash: nil), importedAt: Self.importedAt)
        #expect(plan.account.phoneNumber == kept)
        #expect(plan.notes.contains("dropped a phoneNumber that is not E.164") == (kept == nil))
        #expect(PhoneNumber.isValid(given) == (kept != nil))
    }
}
