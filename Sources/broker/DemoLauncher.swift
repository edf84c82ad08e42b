import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `broker demo`: runs `broker-demo`, the demo's own executable, in this process's place. The demo needs the stub
/// providers and the test harness (BrokerTesting), which the `broker` that operators run does not link. It is
/// looked for beside this executable; when this `broker` was built by SwiftPM in a checkout (`swift run broker
/// demo` builds only `broker`) and the demo is not built yet, it is built first, once.
enum DemoLauncher {
    /// The demo's executable, a product of this package.
    static let executableName = "broker-demo"

    /// Why the demo could not start.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Replaces this process with `broker-demo arguments`; returns only by throwing.
    static func run(arguments: [String]) throws -> Never {
        let directory = currentExecutable().deletingLastPathComponent()
        let demo = directory.appendingPathComponent(executableName)
        if !FileManager.default.isExecutableFile(atPath: demo.path) {
            try build(into: directory)
        }
        fflush(nil)
        var argv: [UnsafeMutablePointer<CChar>?] = ([demo.path] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(demo.path, argv)
        let reason = String(cString: strerror(errno))
        throw Failure(description: "could not run \(demo.path): \(reason)")
    }

    /// This executable's file, symbolic links resolved.
    static func currentExecutable() -> URL {
        let url = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return url.resolvingSymlinksInPath()
    }

    /// The checkout whose SwiftPM build directory `directory` is (`ROOT/.build/TRIPLE/debug`), if it is one.
    static func packageRoot(of directory: URL) -> URL? {
        var candidate = directory
        while candidate.pathComponents.count > 1 {
            if candidate.lastPathComponent == ".build" {
                let root = candidate.deletingLastPathComponent()
                let manifest = root.appendingPathComponent("Package.swift").path
                return FileManager.default.fileExists(atPath: manifest) ? root : nil
            }
            candidate = candidate.deletingLastPathComponent()
        }
        return nil
    }

    /// Builds `broker-demo` into `directory` with `swift build`, when `directory` is a SwiftPM build directory.
    static func build(into directory: URL) throws {
        guard let root = packageRoot(of: directory) else {
            throw Failure(
                description: """
                    the demo is its own executable, \(executableName), and it is not installed beside this broker \
                    (\(directory.path)); from a checkout, run `swift run \(executableName)`
                    """)
        }
        let configuration = directory.lastPathComponent == "release" ? "release" : "debug"
        FileHandle.standardError.write(Data("broker demo: building \(executableName) first (once)\n".utf8))
        let swift = Process()
        swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        swift.arguments = [
            "swift", "build", "--package-path", root.path, "-c", configuration, "--product", executableName,
        ]
        swift.standardOutput = FileHandle.standardError
        // The build's files get the usual permissions, not the owner-only ones `broker` gives its database.
        let brokerMask = umask(0o022)
        defer { umask(brokerMask) }
        try swift.run()
        swift.waitUntilExit()
        guard swift.terminationStatus == 0 else {
            throw Failure(description: "`swift build --product \(executableName)` failed")
        }
    }
}
