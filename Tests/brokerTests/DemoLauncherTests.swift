import Foundation
import Testing

@testable import broker

/// `broker demo` runs the `broker-demo` executable, so that `broker` does not link BrokerTesting (issue 26, item 7).
@Suite struct DemoLauncherTests {
    /// The manifest keeps BrokerTesting out of `broker` and in `broker-demo`.
    @Test func theBrokerTargetDoesNotDependOnBrokerTesting() throws {
        let manifest = try DocsAgreeTests.read("Package.swift")
        func dependencies(of target: String) throws -> String {
            let targets = try #require(manifest.range(of: "targets: [\n"))
            let start = try #require(manifest[targets.upperBound...].range(of: "name: \"\(target)\","))
            let end = try #require(manifest[start.upperBound...].range(of: "swiftSettings"))
            return String(manifest[start.upperBound..<end.lowerBound])
        }
        #expect(try dependencies(of: "broker").contains("\"BrokerDrivers\""))
        #expect(try !dependencies(of: "broker").contains("BrokerTesting"))
        #expect(try dependencies(of: "broker-demo").contains("\"BrokerTesting\""))
    }

    /// Only a SwiftPM build directory of a checkout is one `broker demo` may build the demo into.
    @Test func theDemoIsBuiltOnlyInsideACheckout() {
        let root = DocsAgreeTests.root
        let debug = root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug")
        #expect(DemoLauncher.packageRoot(of: debug)?.standardizedFileURL == root.standardizedFileURL)
        #expect(DemoLauncher.packageRoot(of: URL(fileURLWithPath: "/usr/local/bin")) == nil)
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("x/.build/release")
        #expect(DemoLauncher.packageRoot(of: elsewhere) == nil)
    }
}
