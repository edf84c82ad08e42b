import BrokerTesting
import Foundation
import Testing

/// `scripts/setup-debian`, the README's first command, as root and as a user, against stand-ins for `id`,
/// `dpkg-query`, `sudo` and `apt-get` that record what they were asked (nothing is installed).
@Suite struct SetupScriptTests {
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/setup-debian").path
    }

    struct Machine: Sendable, CustomTestStringConvertible {
        var name: String
        var uid: Int
        var hasSudo: Bool
        var installed: Bool
        var testDescription: String { name }
    }

    /// Runs the script on a pretend machine; returns its status, stderr and the commands the stand-ins saw.
    static func run(on machine: Machine) async throws -> (Int32, String, [String]) {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("calls.log").path
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        var shims = [
            "id": "echo \(machine.uid)",
            "dpkg-query": machine.installed ? "printf 'install ok installed'" : "exit 1",
            "apt-get": "echo \"apt-get $*\" >> '\(log)'",
        ]
        if machine.hasSudo { shims["sudo"] = "echo sudo >> '\(log)'; exec \"$@\"" }
        // The executables are made by a child shell, from text files written here: a file this process had open
        // for writing could be inherited by a process another test spawns meanwhile, and exec would then fail
        // with ETXTBSY ("text file busy") for as long as that process lives.
        var install: [String] = []
        for (name, body) in shims {
            let text = directory.appendingPathComponent("\(name).txt")
            try Data("#!/bin/sh\n\(body)\n".utf8).write(to: text)
            install.append("cp '\(text.path)' '\(bin.path)/\(name)' && chmod 755 '\(bin.path)/\(name)'")
        }
        let installer = try ChildProcess("/bin/sh", ["-c", install.joined(separator: " && ")], environment: [:])
        #expect(try await installer.wait(seconds: 30) == 0)
        // Only the stand-ins and the basic tools: no real sudo or apt-get can be reached.
        let tools = directory.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        for tool in ["env", "grep", "bash", "sh"] {
            for dir in ["/usr/bin", "/bin"] where FileManager.default.fileExists(atPath: "\(dir)/\(tool)") {
                try? FileManager.default.createSymbolicLink(atPath: tools.appendingPathComponent(tool).path, withDestinationPath: "\(dir)/\(tool)")
                break
            }
        }
        let child = try ChildProcess(
            "/bin/bash", [script], environment: ["PATH": "\(bin.path):\(tools.path)", "HOME": directory.path])
        let status = try await child.wait(seconds: 30)
        let calls = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        return (status, child.stderr, calls)
    }

    static let packages =
        "libssl-dev libcurl4-openssl-dev libsqlite3-dev libmicrohttpd-dev libargon2-dev libpq-dev libcrypt-dev libcbor-dev pkg-config python3-aiosmtpd openssl python3-venv pgbouncer"

    @Test func asRootItRunsAptGetItself() async throws {
        let (status, _, calls) = try await Self.run(on: Machine(name: "root", uid: 0, hasSudo: false, installed: false))
        #expect(status == 0)
        #expect(calls == ["apt-get update", "apt-get install -y --no-install-recommends \(Self.packages)"])
    }

    @Test func asAUserItGoesThroughSudo() async throws {
        let (status, _, calls) = try await Self.run(on: Machine(name: "user", uid: 1000, hasSudo: true, installed: false))
        #expect(status == 0)
        #expect(calls == ["sudo", "apt-get update", "sudo", "apt-get install -y --no-install-recommends \(Self.packages)"])
    }

    @Test func aUserWithoutSudoIsToldWhatToRun() async throws {
        let (status, stderr, calls) = try await Self.run(on: Machine(name: "no sudo", uid: 1000, hasSudo: false, installed: false))
        #expect(status == 1)
        #expect(calls.isEmpty)
        #expect(stderr.contains("as root run:") && stderr.contains("apt-get install -y \(Self.packages)"))
    }

    @Test(arguments: [0, 1000])
    func nothingRunsWhenEverythingIsInstalled(_ uid: Int) async throws {
        let (status, _, calls) = try await Self.run(on: Machine(name: "installed", uid: uid, hasSudo: false, installed: true))
        #expect(status == 0)
        #expect(calls.isEmpty)
    }
}
