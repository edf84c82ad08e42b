import Foundation

// The only place that reads the process's arguments and environment.
let status = await BrokerCLI.run(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(status)
