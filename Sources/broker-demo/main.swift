import Foundation

// The only place that reads the process's arguments. `broker demo` runs this executable in its own place
// (Sources/broker/DemoLauncher.swift), so that `broker` itself does not link BrokerTesting.
let status = await DemoCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
