import BrokerCore
import BrokerDrivers
import BrokerTesting
import Foundation

// The only place that reads the process's arguments and environment.
let arguments = Array(CommandLine.arguments.dropFirst())
let status = await StubProvidersMain.run(arguments: arguments, environment: ProcessInfo.processInfo.environment)
exit(status)
