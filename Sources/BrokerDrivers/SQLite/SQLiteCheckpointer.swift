import BrokerCore
import Foundation

/// Checkpoints a file database's WAL on a connection and queue of its own, so copying pages back into the
/// database file does not happen inside one of the writer's commits (SQLite's automatic checkpoint would, and
/// every write queued behind that commit would wait for the copy and its two syncs).
///
/// The writer reports the WAL's length after each commit (``walGrew(to:)``); once it reaches `pages` frames a
/// checkpoint runs, one at a time, in two steps:
/// 1. On the checkpointer's connection, beside the writer's commits and the readers, without blocking them: it
///    copies the WAL as long as it was when it began.
/// 2. On the writer's queue, between two groups of writes: it copies what was committed during step 1, usually
///    a few pages. Only then is all of the WAL copied while no write is under way, which is what lets the
///    writer start the WAL over at its next write; with commits arriving without a pause, step 1 alone would
///    chase them and the WAL would keep growing.
///
/// `@unchecked Sendable`: `scheduled` and `completed` are guarded by `lock`; the connection is only used on
/// the worker's queue.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// WAL frames (pages) that make a checkpoint due.
    let pages: Int
    private let worker: SQLiteWorker
    /// Runs a body on the writer's queue with the write connection (step 2).
    private let onWriter: @Sendable (@escaping @Sendable (SQLiteConnection) -> Void) -> Void
    private let lock = NSLock()
    /// Whether a checkpoint is under way (either step).
    private var scheduled = false
    /// Checkpoints finished so far.
    private var completed = 0

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

    /// Checkpoints finished so far (for tests).
    var checkpoints: Int {
        lock.withLock { completed }
    }

    /// The writer's WAL holds `frames` frames after a commit: starts a checkpoint when that is `pages` or more
    /// and none is under way. Called on the writer's queue; returns at once.
    func walGrew(to frames: Int) {
        guard frames >= pages else { return }
        let start: Bool = lock.withLock {
            if scheduled { return false }
            scheduled = true
            return true
        }
        guard start else { return }
        let onWriter = self.onWriter
        worker.perform { connection in
            // A failed checkpoint leaves the WAL longer; the next commit past the threshold tries again.
            try? connection.checkpoint()
            onWriter { writer in
                try? writer.checkpoint()
                self.lock.withLock {
                    self.scheduled = false
                    self.completed += 1
                }
            }
        }
    }

    /// Closes the connection once a queued checkpoint has finished.
    func close() async {
        await worker.close()
    }
}
