import BrokerCore
import Foundation

/// Checkpoints a file database's WAL on a connection and queue of its own, so copying pages back into the
/// database file does not happen inside one of the writer's commits (SQLite's automatic checkpoint would, and
/// every write queued behind that commit would wait for the copy and its two syncs).
///
/// The writer reports the WAL's length after each commit (``walGrew(to:)``); once `pages` frames have been
/// added since the last checkpoint, one runs, one at a time, in two steps:
/// 1. On the checkpointer's connection, beside the writer's commits and the readers, without blocking them: it
///    copies the WAL as long as it was when it began, and again (up to four passes) while the previous pass
///    found more than 32 new frames, so little is left for step 2.
/// 2. On the writer's queue, between two groups of writes: it copies what was committed since, usually a few
///    pages. Only then is all of the WAL copied while no write is under way, which is what lets the writer
///    start the WAL over at its next write; with commits arriving without a pause, step 1 alone would chase
///    them and the WAL would keep growing. (A reader still using old frames can put the start-over off; the
///    frames count from the last checkpoint, so that does not start one checkpoint after another.)
///
/// ``erase()`` runs one now, whatever the WAL's length, and empties the WAL after it.
///
/// `@unchecked Sendable`: `scheduled`, `completed`, `copiedThrough`, `copiedBeside` and `erasePending` are guarded
/// by `lock`; the connection is only used on the worker's queue.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// WAL frames (pages) added since the last checkpoint that make the next one due.
    let pages: Int
    private let worker: SQLiteWorker
    /// Runs a body on the writer's queue with the write connection (step 2).
    private let onWriter: @Sendable (@escaping @Sendable (SQLiteConnection) -> Void) -> Void
    private let lock = NSLock()
    /// Whether a checkpoint is under way (either step).
    private var scheduled = false
    /// Checkpoints finished so far.
    private var completed = 0
    /// The WAL frames the last checkpoint had copied; a WAL with fewer frames has started over since.
    private var copiedThrough = 0
    /// Frames copied by step 1, over all checkpoints (for tests).
    private var copiedBeside = 0
    /// ``erase()`` was asked for while a checkpoint was under way: one runs after it.
    private var erasePending = false

    /// Opens the checkpointing connection to `path`; `onWriter` queues a body on the writer's queue.
    init(
        path: String, pages: Int,
        onWriter: @escaping @Sendable (@escaping @Sendable (SQLiteConnection) -> Void) -> Void
    ) throws {
        self.pages = max(1, pages)
        self.onWriter = onWriter
        worker = try SQLiteWorker(label: "broker.sqlite.checkpointer") {
            try SQLiteConnection(path: path, role: .checkpointer)
        }
    }

    /// Checkpoints finished so far, and the frames their first step copied (for tests).
    var progress: (checkpoints: Int, copiedBeside: Int) {
        lock.withLock { (completed, copiedBeside) }
    }

    /// The writer's WAL holds `frames` frames after a commit: starts a checkpoint when `pages` of them came
    /// after the last checkpoint and none is under way. Called on the writer's queue; returns at once.
    func walGrew(to frames: Int) {
        let start: Bool = lock.withLock {
            // Fewer frames than the last checkpoint copied: the WAL has started over.
            let base = frames >= copiedThrough ? copiedThrough : 0
            if scheduled || frames - base < pages { return false }
            scheduled = true
            return true
        }
        if start { run(erasing: false) }
    }

    /// A checkpoint now, whatever the WAL's length (one after the current one if one is under way), followed on
    /// the writer's queue by emptying the WAL (``SQLiteConnection/truncateWAL()``): a checkpoint alone copies
    /// the newest copy of each page, but leaves the older frames in the WAL file, and with them content a write
    /// has deleted since. While a reader still uses the WAL, truncating is retried every 20 ms for up to 2 s.
    /// Returns at once.
    func erase() {
        let start: Bool = lock.withLock {
            if scheduled {
                erasePending = true
                return false
            }
            scheduled = true
            return true
        }
        if start { run(erasing: true) }
    }

    /// The two steps of a checkpoint (and, when `erasing`, the WAL emptied after them); `scheduled` is set.
    private func run(erasing: Bool) {
        let onWriter = self.onWriter
        worker.perform { connection in
            // A failed checkpoint leaves the WAL longer; the next commit past the threshold tries again.
            var beside = 0
            var previous = 0
            for _ in 0..<4 {
                guard let pass = try? connection.checkpoint() else { break }
                beside = max(beside, pass.copied)
                let added = pass.walFrames - previous
                previous = pass.walFrames
                if added <= 32 { break }
            }
            self.lock.withLock { self.copiedBeside += beside }
            onWriter { writer in
                let copied = (try? writer.checkpoint())?.copied
                self.lock.withLock {
                    if let copied { self.copiedThrough = copied }
                }
                if erasing {
                    self.truncate(onWriter: onWriter, writer: writer, triesLeft: 100)
                } else {
                    self.finish()
                }
            }
        }
    }

    /// Empties the WAL on the writer's queue, or tries again in 20 ms while a reader holds it.
    private func truncate(
        onWriter: @escaping @Sendable (@escaping @Sendable (SQLiteConnection) -> Void) -> Void,
        writer: SQLiteConnection, triesLeft: Int
    ) {
        let truncated = (try? writer.truncateWAL()) ?? false
        if truncated { lock.withLock { copiedThrough = 0 } }
        if truncated || triesLeft <= 1 {
            finish()
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
            onWriter { writer in self.truncate(onWriter: onWriter, writer: writer, triesLeft: triesLeft - 1) }
        }
    }

    /// Ends a checkpoint; starts the erasing one asked for meanwhile.
    private func finish() {
        let again: Bool = lock.withLock {
            scheduled = false
            completed += 1
            defer { erasePending = false }
            return erasePending
        }
        if again { erase() }
    }

    /// Closes the connection once a queued checkpoint has finished.
    func close() async {
        await worker.close()
    }
}
