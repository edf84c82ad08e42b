import BrokerCore
import Foundation

/// Checkpoints a file database's WAL on a connection and queue of its own, so copying pages back into the
/// database file never happens inside one of the writer's commits (SQLite's automatic checkpoint would, and
/// every write queued behind that commit would wait for the copy and its two syncs).
///
/// The writer reports the WAL's length after each commit (``walGrew(to:)``); once it reaches `pages` frames a
/// passive checkpoint is queued, one at a time. A checkpoint runs beside the writer's commits and the
/// readers, never blocking them; what it cannot copy yet (a reader still needs it) is copied by a later one.
///
/// `@unchecked Sendable`: `scheduled` and `completed` are guarded by `lock`; the connection is only used on
/// the worker's queue.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// WAL frames (pages) that make a checkpoint due.
    let pages: Int
    private let worker: SQLiteWorker
    private let lock = NSLock()
    /// Whether a checkpoint is queued or running.
    private var scheduled = false
    /// Checkpoints run so far.
    private var completed = 0

    /// Opens the checkpointing connection to `path`.
    init(path: String, pages: Int) throws {
        self.pages = max(1, pages)
        worker = try SQLiteWorker(label: "broker.sqlite.checkpointer") {
            try SQLiteConnection(path: path, role: .checkpointer)
        }
    }

    /// Checkpoints run so far (for tests).
    var checkpoints: Int {
        lock.withLock { completed }
    }

    /// The writer's WAL holds `frames` frames after a commit: queues a checkpoint when that is `pages` or more
    /// and none is queued. Called on the writer's queue; returns at once.
    func walGrew(to frames: Int) {
        guard frames >= pages else { return }
        let start: Bool = lock.withLock {
            if scheduled { return false }
            scheduled = true
            return true
        }
        guard start else { return }
        worker.perform { connection in
            // A failed checkpoint leaves the WAL longer; the next commit past the threshold tries again.
            try? connection.checkpoint()
            self.lock.withLock {
                self.scheduled = false
                self.completed += 1
            }
        }
    }

    /// Closes the connection once a queued checkpoint has finished.
    func close() async {
        await worker.close()
    }
}
