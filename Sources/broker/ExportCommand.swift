import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation

/// `broker admin export FILE` (contract section 8): every account in the JSON shape of
/// `firebase auth:export --format=json`, with the broker's extension fields, which `broker admin import
/// firebase FILE` reads back without hash flags. Written page by page to `FILE.partial` (mode 0600: it holds
/// password hashes), then renamed to FILE, so a FILE that exists is complete. Each account's second factors are
/// written without their secrets, unless `--include-secrets` (then sealed with `BROKER_ENCRYPTION_KEY`).
enum ExportCommand {
    static let usage = """
        usage: broker admin export FILE [--include-secrets] [--json] [--config FILE] [--database PATH_OR_URL]
        Writes every user as `firebase auth:export --format=json` does: Argon2id hashes as base64 PHC strings,
        imported hashes not yet upgraded with their parameters (brokerHashConfig), origins (brokerOrigin), second
        factors (brokerSecondFactors: id, name, enrolment time, recovery codes left). Never a password derived from
        a provider id. --include-secrets adds the factors' secrets and the recovery codes' hashes, sealed with
        BROKER_ENCRYPTION_KEY (a broker with the same key imports working factors). `broker admin import firebase
        FILE` reads it back without hash flags.
        """

    static func run(options: LaunchOptions, environment: [String: String]) async throws -> Int32 {
        let words = options.positional
        guard words.count == 2, !words[1].isEmpty else {
            BrokerCLI.printError(usage)
            return 2
        }
        let target = URL(fileURLWithPath: words[1])
        // The configured providers give identities their Firebase provider ids (google -> google.com; oidc.<id> for
        // an identity an ID token linked, <id> for one an access token linked).
        let config = try BrokerConfig(
            contentsOf: options.configPath, environment: environment, sections: Startup.configSections)
        let cipher = try OutboxCipher.fromEnvironment(environment)  // as serve builds them
        let includeSecrets = options.switches.contains("--include-secrets")
        if includeSecrets, cipher == nil {
            BrokerCLI.printError("broker admin export: --include-secrets needs BROKER_ENCRYPTION_KEY")
            return 2
        }
        let (registry, client) = try Startup.providers(config, cipher: cipher)
        defer { Task { await client.shutdown() } }

        let (store, database) = try await Startup.openStore(options.database, environment: environment)
        defer { Task { await database.close() } }
        let partial = target.appendingPathExtension("partial")
        try? FileManager.default.removeItem(at: partial)
        guard
            FileManager.default.createFile(atPath: partial.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: partial.path)
        else {
            BrokerCLI.printError("broker admin export: cannot write \(partial.path)")
            return 1
        }
        let report: FirebaseExporter.Report
        do {
            defer { try? handle.close() }
            var exporter = FirebaseExporter(store: AccountTransfer(store: store), providers: registry)
            exporter.includesSecondFactors = true
            exporter.secrets = includeSecrets ? cipher : nil
            report = try await exporter.export(
                to: { bytes in try handle.write(contentsOf: bytes) },
                progress: { done in
                    if done > 0, done % 10_000 == 0 {
                        FileHandle.standardError.write(Data("export: \(done) users\n".utf8))
                    }
                })
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        if FileManager.default.fileExists(atPath: target.path) {
            _ = try FileManager.default.replaceItemAt(target, withItemAt: partial)
        } else {
            try FileManager.default.moveItem(at: partial, to: target)
        }
        if options.switches.contains("--json") {
            var members: [String: JSONValue] = [
                "users": .int(Int64(report.users)),
                "derivedHashesSkipped": .int(Int64(report.derivedHashesSkipped)),
                "unreadableHashesSkipped": .int(Int64(report.unreadableHashesSkipped)),
            ]
            // Present only when there are second factors, so that an export without any reads as before.
            if report.secondFactors > 0 {
                members["secondFactors"] = .int(Int64(report.secondFactors))
                members["secondFactorSecrets"] = .bool(includeSecrets)
            }
            print(AdminCommand.pretty(.object(members)))
        } else {
            print("exported \(report.users) users to \(target.path)")
            if report.derivedHashesSkipped > 0 {
                print("  \(report.derivedHashesSkipped) passwords derived from a provider id left out")
            }
            if report.unreadableHashesSkipped > 0 {
                print("  \(report.unreadableHashesSkipped) unreadable password hashes left out")
            }
            if report.secondFactors > 0 {
                print(
                    "  \(report.secondFactors) second factors, "
                        + (includeSecrets
                            ? "with their secrets sealed with BROKER_ENCRYPTION_KEY"
                            : "without their secrets (an import leaves them out; --include-secrets keeps them)"))
            }
        }
        return 0
    }
}
