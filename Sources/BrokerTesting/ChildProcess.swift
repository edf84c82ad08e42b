public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process spawned with `posix_spawn` and reaped with `waitpid` on its own pid, its standard output
/// and error collected by a thread each.
///
/// Not Foundation's `Process`: on Linux it notices a child's exit through a socket the child inherits, and
/// when any other process started meanwhile inherits that socket too (a PostgreSQL server that `pg_ctl start`
/// leaves behind, say), the exit goes unnoticed and `isRunning` stays true for as long as that process lives
/// (swift-corelibs-foundation issue 4795). The descriptors made here are close-on-exec, so no other child
/// inherits them, and the exit is read from the kernel, whatever other processes hold.
public final class ChildProcess: @unchecked Sendable {
    /// Where the child's standard output and error go.
    public enum Output: Sendable {
        /// Collected, readable through ``stdout`` and ``stderr``.
        case collect
        /// `/dev/null`, for a child that leaves a daemon holding them.
        case discard
    }

    /// The command line, for messages.
    public let commandLine: String
    /// The child's process id.
    public let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?
    private var collected: [Int32: [UInt8]] = [1: [], 2: []]
    private var openStreams = 0
    private var disowned = false

    /// Starts `executable` with `arguments` and exactly `environment`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], output: Output = .collect) throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var readEnds: [Int32: Int32] = [:]
        var writeEnds: [Int32] = []
        defer { for fd in writeEnds { close(fd) } }
        for stream: Int32 in [1, 2] {
            switch output {
            case .discard:
                posix_spawn_file_actions_addopen(&actions, stream, "/dev/null", O_WRONLY, 0)
            case .collect:
                var ends: [Int32] = [0, 0]
                // A socket pair rather than a pipe: it can be made close-on-exec atomically (`pipe2` is not
                // imported), so a process spawned by another thread meanwhile cannot inherit it.
                let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                guard socketpair(AF_UNIX, type, 0, &ends) == 0
                else {
                    for fd in readEnds.values { close(fd) }
                    throw SpawnError(commandLine: commandLine, code: errno)
                }
                readEnds[stream] = ends[0]
                writeEnds.append(ends[1])
                posix_spawn_file_actions_adddup2(&actions, ends[1], stream)  // dup2 clears close-on-exec
            }
        }
        // The spawning thread may block signals (libdispatch's threads block them all), and a child inherits
        // the mask and any ignored signal: start it with none blocked and every signal at its default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            for fd in readEnds.values { close(fd) }
            throw SpawnError(commandLine: commandLine, code: spawned)
        }
        self.pid = pid
        openStreams = readEnds.count
        for (stream, fd) in readEnds {
            Thread.detachNewThread { [self] in drain(fd, into: stream) }
        }
    }

    deinit {
        if exitStatus == nil && !disowned {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }

    /// Reads `fd` until end of file (every writer gone).
    private func drain(_ fd: Int32, into stream: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                lock.withLock { collected[stream, default: []] += buffer[..<count] }
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(fd)
        lock.withLock { openStreams -= 1 }
    }

    public var stdout: String { lock.withLock { String(decoding: collected[1] ?? [], as: UTF8.self) } }
    public var stderr: String { lock.withLock { String(decoding: collected[2] ?? [], as: UTF8.self) } }

    /// The exit status once the child has exited (128 + the signal's number when a signal ended it).
    public var status: Int32? {
        lock.withLock {
            if exitStatus == nil {
                var raw: Int32 = 0
                let reaped = waitpid(pid, &raw, WNOHANG)
                if reaped == pid {
                    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
                    exitStatus = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
                } else if reaped == -1 && errno == ECHILD {
                    exitStatus = -1  // reaped elsewhere: gone, with its status unknown
                }
            }
            return exitStatus
        }
    }

    public var isRunning: Bool { status == nil }

    /// Leaves the child running when this object goes away (it is killed otherwise): for a daemon that
    /// outlives the process that started it.
    public func disown() {
        lock.withLock { disowned = true }
    }

    /// Sends `signal` (SIGTERM unless told) if the child still runs.
    public func terminate(_ signal: Int32 = SIGTERM) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits, polling, for the exit (up to `seconds`, then SIGKILL and ``TimedOut``) and for its output to
    /// be read; returns the status.
    public func wait(seconds: Double = 90) async throws -> Int32 {
        let deadline = Date() + seconds
        while true {
            if let status {
                // The output is complete once every writer is gone; a daemon the child left may hold it longer.
                let drained = Date() + 2
                while lock.withLock({ openStreams }) > 0, Date() < drained {
                    try await Task.sleep(for: .milliseconds(10))
                }
                return status
            }
            guard Date() < deadline else {
                terminate(SIGKILL)
                throw TimedOut(commandLine: commandLine, what: "exit", stderr: stderr)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Polls standard error (or output) until a line contains `text`; returns that line.
    public func waitForLog(_ text: String, onStandardOutput: Bool = false, seconds: Double = 90) async throws -> String {
        let deadline = Date() + seconds
        while Date() < deadline {
            let output = onStandardOutput ? stdout : stderr
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if !isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        terminate(SIGKILL)
        throw TimedOut(commandLine: commandLine, what: "a line containing \(text)", stderr: stderr)
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public var commandLine: String
        public var code: Int32
        public var description: String { "cannot run \(commandLine): \(String(cString: strerror(code)))" }
    }

    public struct TimedOut: Error, CustomStringConvertible {
        public var commandLine: String
        public var what: String
        public var stderr: String
        public var description: String { "\(commandLine): no \(what) in time; its stderr ends:\n\(stderr.suffix(2000))" }
    }
}
