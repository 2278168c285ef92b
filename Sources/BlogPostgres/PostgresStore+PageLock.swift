import BlogModel
import Foundation
import Dispatch
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Runs `body` holding the page lock of `userID` across every instance
    /// on this database, so that the last page written is rendered from the
    /// last state committed.
    ///
    /// The lock is a transaction-level advisory lock on a connection of the
    /// lock pool, held while `body` runs on the calling thread and released
    /// by the transaction's end: unlike a session lock it can never outlive
    /// its holder on a pooled connection, and the server drops it if the
    /// connection breaks. `body` reads through the other pool, so holders
    /// never wait for connections that other holders keep.
    public func withPageLock<T>(userID: Int64, _ body: () throws -> T) throws -> T {
        try gate.enter()
        defer { gate.leave() }
        let held = Handoff()
        let finished = DispatchSemaphore(value: 0)
        let key = AdvisoryLock.key(userID: userID)
        let task = Task(executorPreference: blocking.executor) { [lockClient, logger] in
            do {
                try await lockClient.withConnection { connection in
                    try await connection.inTransaction(logger: logger) { connection in
                        try await connection.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.pageSpace), \(key))", logger: logger)
                        // A caller past its deadline is gone: let go at once.
                        if held.locked(nil) { await held.released() }
                    }
                }
            } catch {
                if !held.locked(error) {
                    // After the body: the transaction's end released the
                    // lock, or the server did when the connection broke.
                    logger.warning("page lock not released cleanly", metadata: ["error": "\(PostgresFailure.reason(error))"])
                }
            }
            finished.signal()
        }
        if let failure = held.waitUntilLocked(within: RequestDeadline.seconds(upTo: deadline)) {
            task.cancel()
            if case StorageError.deadlineExceeded = failure { throw StorageError.deadlineExceeded(seconds: deadline) }
            _ = finished.wait(timeout: .now() + deadline)
            throw PostgresFailure.storageError(failure)
        }
        defer {
            held.release()
            // Unlocked before this writer's turn ends, unless the database
            // is gone: then the server drops the lock with the connection.
            if finished.wait(timeout: .now() + RequestDeadline.seconds(upTo: deadline)) == .timedOut { task.cancel() }
        }
        return try body()
    }
}

/// The meeting point of a page lock's task and the thread that runs the
/// body: the task says when the lock is held, the thread when to let go.
private final class Handoff: Sendable {
    private struct State {
        var lockOutcome: (any Error)??
        var released = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let lockedSignal = DispatchSemaphore(value: 0)

    /// The task: the lock is held (nil) or could not be taken. Only the
    /// first call counts; returns whether this one did.
    @discardableResult
    func locked(_ failure: (any Error)?) -> Bool {
        let first = state.withLock { state in
            guard state.lockOutcome == nil else { return false }
            state.lockOutcome = .some(failure)
            return true
        }
        if first { lockedSignal.signal() }
        return first
    }

    /// The thread: waits for `locked`, for at most `seconds`; returns its
    /// failure, if any (`.deadlineExceeded` when the time ran out first).
    func waitUntilLocked(within seconds: Double) -> (any Error)? {
        if lockedSignal.wait(timeout: .now() + seconds) == .timedOut,
           locked(StorageError.deadlineExceeded(seconds: seconds)) {
            return StorageError.deadlineExceeded(seconds: seconds)
        }
        return state.withLock { $0.lockOutcome! }
    }

    /// The task: suspends until the thread releases the lock.
    func released() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.released { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The thread: the body is done.
    func release() {
        let waiter = state.withLock { state in
            state.released = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
