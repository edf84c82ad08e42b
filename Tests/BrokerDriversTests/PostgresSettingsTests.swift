import BrokerCore
import BrokerStorage
import Testing

@testable import BrokerDrivers

/// The database URL: the broker's own parameters taken out, the password never shown.
@Suite("PostgreSQL settings")
struct PostgresSettingsTests {
    @Test func poolSizeIsTakenOutAndThePasswordRedacted() throws {
        let settings = try PostgresSettings(
            url: "postgres://broker:s3cr%21t@db.internal:5433/broker?sslmode=disable&poolSize=12&connect_timeout=2")
        #expect(settings.poolSize == 12)
        #expect(settings.conninfo == "postgres://broker:s3cr%21t@db.internal:5433/broker?sslmode=disable&connect_timeout=2")
        #expect(settings.redacted == "postgres://broker@db.internal:5433/broker")
        #expect(settings.scrub("failed for s3cr!t and s3cr%21t") == "failed for *** and ***")
    }

    @Test func aURLWithoutQueryOrUserIsKeptAsItIs() throws {
        let settings = try PostgresSettings(url: "postgresql://localhost/broker")
        #expect(settings.poolSize == nil)
        #expect(settings.conninfo == "postgresql://localhost/broker")
        #expect(settings.redacted == "postgresql://localhost/broker")
    }

    @Test func aPasswordParameterIsRedactedToo() throws {
        let settings = try PostgresSettings(url: "postgres://broker@db/broker?password=hunter22")
        #expect(settings.redacted == "postgres://broker@db/broker")
        #expect(settings.scrub("password=hunter22") == "password=***")
    }

    @Test(arguments: ["0", "101", "four", ""])
    func aBadPoolSizeIsRefused(_ value: String) {
        let error = #expect(throws: SQLError.self) {
            try PostgresSettings(url: "postgres://u:pw-secret@db/broker?poolSize=\(value)")
        }
        #expect(error?.code == .other)
        #expect(error?.message.contains("poolSize") == true)
        #expect(error?.message.contains("pw-secret") == false)
    }

    @Test func aURLLibpqRefusesIsRefusedWithoutThePassword() {
        let error = #expect(throws: SQLError.self) {
            try PostgresDatabase(url: "postgres://u:pw%zzsecret@db/broker")
        }
        #expect(error?.code == .other)
        #expect(error?.message.contains("invalid database URL postgres://u@db/broker") == true, "\(String(describing: error))")
        #expect(error?.message.contains("secret") == false, "\(String(describing: error))")
    }

    /// A parameter neither the broker nor libpq reads is refused naming the closest that is (issue 58): libpq
    /// would refuse it too, but only `serve` asked libpq, so `check-config` passed it.
    @Test(arguments: [
        ("poolsize=4", "unknown parameter \"poolsize\" (did you mean \"poolSize\"?)"),
        ("SearchPath=a", "unknown parameter \"SearchPath\" (did you mean \"searchPath\"?)"),
        ("sslmod=require", "unknown parameter \"sslmod\" (did you mean \"sslmode\"?)"),
        ("nonsense=1", "unknown parameter \"nonsense\""),
    ])
    func anUnknownParameterIsRefusedWithTheNearestName(_ query: String, _ message: String) {
        let error = #expect(throws: SQLError.self) { try PostgresDatabase.check(url: "postgres://u:pw-secret@db/b?\(query)") }
        #expect(error?.code == .other)
        #expect(error?.message == "database URL: \(message)", "\(String(describing: error))")
    }

    /// libpq's own parameters, and `ssl=true` (its JDBC-style alias), pass.
    @Test func libpqsParametersPass() throws {
        try PostgresDatabase.check(
            url: "postgres://db/b?sslmode=require&connect_timeout=2&application_name=x&target_session_attrs=read-write")
        try PostgresDatabase.check(url: "postgres://db/b?ssl=true")
    }

    /// libpq takes any text as a port until it connects; the check refuses it at once, in the URL's authority, in
    /// a `port=` parameter and in a key=value string, never showing the password.
    @Test(arguments: [
        "postgres://u:pw-secret@db:abc/b", "postgres://u:pw-secret@db1:5432,db2:x/b", "postgres://db:65536/b",
        "postgres://db/b?port=0&password=pw-secret", "host=db port=five password=pw-secret",
    ])
    func aPortThatIsNotANumberIsRefused(_ url: String) {
        let error = #expect(throws: SQLError.self) { try PostgresDatabase.check(url: url) }
        #expect(error?.code == .other)
        #expect(error?.message.contains("is not a number from 1 to 65535") == true, "\(String(describing: error))")
        #expect(error?.message.contains("pw-secret") == false)
    }

    @Test func goodPortsPass() throws {
        try PostgresDatabase.check(url: "postgres://db1:5432,db2/b")
        try PostgresDatabase.check(url: "postgres://[::1]:5433/b")
        try PostgresDatabase.check(url: "host=db port=5432 dbname=b")
    }

    @Test func thePoolSizeComesFromTheURLThenTheCallerThenTheDefault() throws {
        #expect(try PostgresDatabase(url: "postgres://db/b?poolSize=7", poolSize: 2).poolSize == 7)
        #expect(try PostgresDatabase(url: "postgres://db/b", poolSize: 2).poolSize == 2)
        #expect(try PostgresDatabase(url: "postgres://db/b").poolSize == PostgresDatabase.defaultPoolSize)
        #expect(throws: SQLError.self) { try PostgresDatabase(url: "postgres://db/b", poolSize: 0) }
    }

    @Test func theSearchPathIsTakenOutAndSetPerTransaction() throws {
        let settings = try PostgresSettings(url: "postgres://db/broker?searchPath=Broker%2C%24user,public&sslmode=disable")
        #expect(settings.conninfo == "postgres://db/broker?sslmode=disable")
        #expect(settings.searchPath == ["\"broker\"", "\"$user\"", "\"public\""])
        #expect(settings.searchPathStatement == "SET LOCAL search_path TO \"broker\", \"$user\", \"public\"")
        #expect(try PostgresSettings(url: "postgres://db/broker").searchPathStatement == nil)
    }

    @Test(arguments: ["", "a,,b", "1abc", "x%22%3B%20DROP", "a-b", String(repeating: "s", count: 64), "a,b,c,d,e,f,g,h,i"])
    func aBadSearchPathIsRefused(_ value: String) {
        let error = #expect(throws: SQLError.self) {
            try PostgresSettings(url: "postgres://u:pw-secret@db/broker?searchPath=\(value)")
        }
        #expect(error?.code == .other)
        #expect(error?.message.contains("searchPath") == true)
        #expect(error?.message.contains("pw-secret") == false)
    }

    @Test func theCallTimeoutIsTakenOutAndBounded() throws {
        let settings = try PostgresSettings(url: "postgres://db/broker?callTimeout=9&sslmode=disable")
        #expect(settings.callTimeout == .seconds(9))
        #expect(settings.conninfo == "postgres://db/broker?sslmode=disable")
        #expect(try PostgresSettings(url: "postgres://db/broker").callTimeout == PostgresSettings.defaultCallTimeout)
        for value in ["0", "601", "1.5", ""] {
            let error = #expect(throws: SQLError.self) { try PostgresSettings(url: "postgres://db/broker?callTimeout=\(value)") }
            #expect(error?.message.contains("callTimeout") == true)
        }
    }
}
