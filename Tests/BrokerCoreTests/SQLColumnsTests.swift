import Testing

@testable import BrokerCore
@testable import BrokerStorage

/// The column index every store reads rows through: each name at its select position, the first of a repeated
/// name, nothing for a name the query does not have.
@Suite("SQLColumns")
struct SQLColumnsTests {
    @Test(arguments: [0, 1, 2, 3, 7, 8, 40, 300])
    func everyNameIsFoundAtItsPosition(count: Int) {
        let names = (0..<count).map { "column_\($0)" }
        let columns = SQLColumns(names)
        for (position, name) in names.enumerated() {
            #expect(columns.index(of: name) == position)
        }
        #expect(columns.index(of: "column_\(count)") == nil)
        #expect(columns.index(of: "") == nil)
        #expect(columns.names == names)
    }

    @Test func theAccountsColumnsAreFoundAndNothingElse() {
        let names = SQLBrokerStore.accountColumnNames
        let columns = SQLColumns(names)
        for (position, name) in names.enumerated() {
            #expect(columns.index(of: name) == position)
        }
        for missing in ["UID", "uid ", " uid", "u", "email_", "ema", "tokens_valid_after_", "x"] {
            #expect(columns.index(of: missing) == nil, "\(missing)")
        }
    }

    @Test func aRepeatedNameIsItsFirstPosition() {
        let columns = SQLColumns(["uid", "created_at", "uid", "email", "created_at"])
        #expect(columns.index(of: "uid") == 0)
        #expect(columns.index(of: "created_at") == 1)
        #expect(columns.index(of: "email") == 3)
    }

    @Test func aRowReadsItsValuesByName() {
        let row = SQLRow(columns: ["uid", "sign_ins", "email"], values: [.text("u1"), .integer(3), .null])
        #expect(row.text("uid") == "u1")
        #expect(row.integer("sign_ins") == 3)
        #expect(row.text("email") == nil)
        #expect(row["missing"] == .null)
    }

    /// Names that differ in one byte, or in their order of bytes, are told apart.
    @Test func namesThatDifferInOneByteAreToldApart() {
        let names = ["ab", "ba", "aa", "bb", "a\u{e9}", "a", "b", "abc", "abd", "bac"]
        let columns = SQLColumns(names)
        for (position, name) in names.enumerated() {
            #expect(columns.index(of: name) == position, "\(name)")
        }
        #expect(columns.index(of: "ac") == nil)
    }
}
