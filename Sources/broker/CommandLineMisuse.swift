import BrokerCore
import BrokerModel

/// A command line `broker` cannot run: an unknown command or subcommand, an option the command does not take, a
/// flag without its value, an argument missing or one too many. Whatever the mistake, `broker` prints the problem,
/// naming the word (and the nearest known one, when one is close), then the usage of the command it was meant for,
/// on standard error, and exits with ``exitStatus``.
struct CommandLineMisuse: Error, Equatable, CustomStringConvertible {
    /// The one exit status of every misuse (as getopt-style tools use 2 for a wrong command line).
    static let exitStatus: Int32 = 2

    /// What is wrong, naming the word: `unknown command "serv" (did you mean "serve"?)`.
    var problem: String
    /// The option the problem is about, when it is an unknown one (the caller knows the command's options and adds
    /// the "did you mean").
    var unknownOption: String?
    /// The usage printed after the problem; nil: the caller's.
    var usage: String?

    /// A misuse saying `problem`.
    init(_ problem: String, usage: String? = nil) {
        self.problem = problem
        self.usage = usage
    }

    /// `--name` (or `--name=value`) that no command takes.
    static func unknown(option: String) -> CommandLineMisuse {
        var misuse = CommandLineMisuse("unknown option \(option)")
        misuse.unknownOption = option
        return misuse
    }

    /// ` (did you mean "x"?)` for the known word nearest to `word`, or nothing when none is close.
    static func suggestion(for word: String, among known: some Sequence<String>) -> String {
        ConfigIssues.nearest(to: word, among: Set(known)).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// The problem, then the usage.
    var description: String { usage.map { "\(problem)\n\($0)" } ?? problem }
}
