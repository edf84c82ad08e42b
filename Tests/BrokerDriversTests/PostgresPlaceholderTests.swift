import Testing

@testable import BrokerDrivers

/// `?` → `$n`: placeholders are numbered, text that only looks like one is left alone.
@Suite("PostgreSQL placeholders")
struct PostgresPlaceholderTests {
    @Test(arguments: [
        ("SELECT 1", "SELECT 1", 0),
        ("INSERT INTO t (a, b) VALUES (?, ?)", "INSERT INTO t (a, b) VALUES ($1, $2)", 2),
        ("UPDATE t SET a = ? WHERE b = ? AND c IS NULL", "UPDATE t SET a = $1 WHERE b = $2 AND c IS NULL", 2),
        ("SELECT '?' AS q, ? AS p", "SELECT '?' AS q, $1 AS p", 1),
        ("SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1", 1),
        (#"SELECT E'\'?', ?"#, #"SELECT E'\'?', $1"#, 1),
        (#"SELECT 'a\', ?"#, #"SELECT 'a\', $1"#, 1),
        (#"SELECT "col?" FROM "t""?" WHERE x = ?"#, #"SELECT "col?" FROM "t""?" WHERE x = $1"#, 1),
        ("SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2", 2),
        ("SELECT /* ? /* nested ? */ ? */ ?", "SELECT /* ? /* nested ? */ ? */ $1", 1),
        ("SELECT $$?$$, $tag$ it's ? $tag$, ?", "SELECT $$?$$, $tag$ it's ? $tag$, $1", 1),
        ("SELECT a$b, ?", "SELECT a$b, $1", 1),
        ("SELECT 'unterminated ?", "SELECT 'unterminated ?", 0),
        ("SELECT 'Zoë ?', ? -- 👩‍💻 ?", "SELECT 'Zoë ?', $1 -- 👩‍💻 ?", 1),
        ("?,?,?,?,?,?,?,?,?,?,?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11", 11),
    ])
    func rewrites(_ sql: String, _ expected: String, _ count: Int) {
        let rewritten = PostgresPlaceholders.rewrite(sql)
        #expect(rewritten.text == expected)
        #expect(rewritten.count == count)
    }
}
