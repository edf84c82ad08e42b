import BrokerCore
import BrokerFirebase
import BrokerDrivers
import BrokerIdentity
import BrokerModel
import BrokerStorage
import Foundation

/// `broker admin import firebase FILE [hash flags] [--map-provider A=B]... [--link-uid-prefix P=B]...
/// [--dry-run] [--json]` (contract section 8). Exit status 0 when nothing was refused, 1 when something was,
/// 2 for flags or a file that cannot be used (then nothing is written). Takes `--config`: the configured
/// providers are the ones identities can be mapped to.
enum ImportCommand {
    static let usage = """
        usage: broker admin import firebase FILE [--hash-algo ALGORITHM] [--hash-key B64] [--salt-separator B64]
                 [--rounds N] [--mem-cost N] [--parallelization N] [--block-size N] [--dk-len N]
                 [--hash-input-order SALT_FIRST|PASSWORD_FIRST]
                 [--map-provider FIREBASE_ID=PROVIDER]... [--link-uid-prefix PREFIX=PROVIDER]... [--dry-run] [--json]
                 [--config FILE] [--database PATH_OR_URL]
        Imports a `firebase auth:export --format=json` file: uids kept, the whole file checked before anything is
        written. Second factors exported with their secrets are restored (BROKER_ENCRYPTION_KEY must be the key
        they were sealed with); those exported without them are left out, and counted.
        ALGORITHM: SCRYPT, STANDARD_SCRYPT, BCRYPT, PBKDF2_SHA256, PBKDF_SHA1, HMAC_SHA256, HMAC_SHA512,
        HMAC_SHA1, HMAC_MD5, MD5, SHA1, SHA256 or SHA512. Exit status 0 when no user was refused, 1 when some
        were, 2 for a file or flags that cannot be used.
        """

    static func run(options: LaunchOptions, environment: [String: String]) async throws -> Int32 {
        let words = options.positional
        guard words.count == 3, words[1] == "firebase" else {
            BrokerCLI.printError(usage)
            return 2
        }
        let importOptions: FirebaseImportOptions
        let export: FirebaseExport
        // Each account imported is a `user.created` event for the endpoints that take it (contract section 16).
        let events: EventSettings
        let cipher: OutboxCipher?
        do {
            let hash = try options.value("--hash-algo").map { algorithm in
                try FirebaseHashOptions(
                    hashAlgo: algorithm, hashKey: options.value("--hash-key"),
                    saltSeparator: options.value("--salt-separator"), rounds: options.value("--rounds"),
                    memCost: options.value("--mem-cost"), parallelization: options.value("--parallelization"),
                    blockSize: options.value("--block-size"), dkLen: options.value("--dk-len"),
                    hashInputOrder: options.value("--hash-input-order"))
            }
            // The configured providers say which Firebase provider ids map to them without --map-provider.
            let config = try BrokerConfig(
            contentsOf: options.configPath, environment: environment, sections: Startup.configSections)
            events = config.events
            cipher = try OutboxCipher.fromEnvironment(environment)  // as serve builds them
            let (registry, client) = try Startup.providers(config, cipher: cipher)
            defer { Task { await client.shutdown() } }
            importOptions = try FirebaseImportOptions(
                hash: hash, providers: FirebaseImportOptions.wellKnownProviders(registry),
                mapProvider: options.values("--map-provider"), linkUIDPrefix: options.values("--link-uid-prefix"))
            let targets = Set(importOptions.providerMap.values).union(importOptions.uidPrefixLinks.map(\.provider))
            if let unknown = targets.first(where: { registry.provider($0) == nil }) {
                throw ImportedHashError(.parameterOutOfRange, "\(unknown.rawValue) is not a configured provider")
            }
            export = try FirebaseExport(contentsOf: URL(fileURLWithPath: words[2]))
            // The whole file is checked before the database is even opened.
            _ = try FirebaseImporter.check(export, options: importOptions, importedAt: Date(), cipher: cipher)
        } catch let error as ImportedHashError {
            BrokerCLI.printError("broker admin import: \(error)")
            return 2
        } catch let error as FirebaseExportError {
            BrokerCLI.printError("broker admin import: \(words[2]): \(error)")
            return 2
        }
        let dryRun = options.switches.contains("--dry-run")
        // A dry run changes nothing: with no SQLite file there yet, it compares with an empty database in memory
        // rather than creating the file.
        let location =
            dryRun && !Startup.isPostgres(options.database) && !FileManager.default.fileExists(atPath: options.database)
            ? ":memory:" : options.database
        let (store, database) = try await Startup.openStore(location, environment: environment, events: events)
        defer { Task { await database.close() } }
        let importer = FirebaseImporter(
            store: AccountTransfer(store: store), options: importOptions, clock: SystemClock(),
            source: URL(fileURLWithPath: words[2]).lastPathComponent, cipher: cipher)
        let total = export.count
        // Progress on stderr, for files large enough to take a while.
        var progress: (@Sendable (Int, Int) -> Void)?
        if total >= 1000 { progress = reportProgress }
        let report: FirebaseImporter.Report
        do {
            // The importer checks the whole file before it writes anything.
            report = try await importer.run(
                export, dryRun: dryRun, progress: progress)
        } catch let error as ImportedHashError {
            BrokerCLI.printError("broker admin import: \(error)")
            return 2
        }
        if options.switches.contains("--json") {
            print(AdminCommand.pretty(report.json))
        } else {
            let verb = dryRun ? "would import" : "imported"
            print("\(verb) \(report.imported), unchanged \(report.unchanged), failed \(report.failed.count)")
            for failure in report.failed {
                print("  #\(failure.index) \(failure.uid ?? "-"): \(failure.reason)")
            }
            if report.secondFactors > 0 { print("  \(report.secondFactors) second factors restored") }
            if report.secondFactorsLeftOut > 0 {
                print(
                    "  \(report.secondFactorsLeftOut) second factors left out: exported without --include-secrets "
                        + "(those users sign in with their first factor until they enrol again)")
            }
        }
        return report.exitStatus
    }

    /// One progress line on stderr: `import: 3000/100000 users`.
    @Sendable static func reportProgress(done: Int, total: Int) {
        FileHandle.standardError.write(Data("import: \(done)/\(total) users\n".utf8))
    }
}
