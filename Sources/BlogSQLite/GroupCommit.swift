import Dispatch
import BlogModel
import GRDB
import Synchronization

/// Group commit: the writes that many clients hand in at about the same
/// time share one transaction, so they share one fsync.
///
/// Each write runs in a savepoint of its own inside the batch: a write that
/// fails is rolled back alone and reported to its caller alone, and the
/// others still commit. Every caller waits until the batch commit is on
/// disk, so an OK reply after `write` returns is still a durable one. If the
/// commit itself fails, the whole batch is rolled back and each write is
/// tried again in a transaction of its own, so one bad write cannot take
/// its batch mates down, and none is stored twice.
///
/// No thread of its own commits: a writer that finds no batch under way
/// commits one itself, on its own thread, and then hands the next batch
/// to the first writer waiting (which was to wake anyway, for its reply).
/// So a lone post crosses no thread here, and under load each batch costs
/// no extra wake-up.
///
/// A write still waiting for its batch after `deadline` seconds (the batch
/// before it stuck on a slow disk, another process holding the file) is
/// taken out of the queue and fails with `.deadlineExceeded`: it is never
/// made, so the failure reply is true. One already in a batch runs to its
/// end, which SQLite's busy timeout bounds.
final class GroupCommit: Sendable {
    private final class Job: @unchecked Sendable {
        let work: (Database) throws -> Void
        /// Run by the committer once the batch is on disk, in commit order.
        let committed: (() -> Void)?
        let done = DispatchSemaphore(value: 0)
        /// Set by the committer before `done` is signalled.
        var failure: (any Error)?
        /// Waiting, asked to commit the next batch, taken into a batch, or
        /// given up by its caller: whoever moves it out of waiting first
        /// decides.
        private let state = Atomic<UInt8>(Job.waiting)
        private static let waiting: UInt8 = 0, taken: UInt8 = 1, abandoned: UInt8 = 2, leading: UInt8 = 3

        init(_ work: @escaping (Database) throws -> Void, committed: (() -> Void)?) {
            self.work = work
            self.committed = committed
        }

        /// The committer: false when the caller gave up on it.
        func take() -> Bool {
            state.compareExchange(expected: Self.waiting, desired: Self.taken, ordering: .acquiringAndReleasing).exchanged
                || state.compareExchange(expected: Self.leading, desired: Self.taken, ordering: .acquiringAndReleasing).exchanged
        }

        /// The caller, at its deadline: false when a batch has it already,
        /// or it was asked to commit one.
        func abandon() -> Bool {
            state.compareExchange(expected: Self.waiting, desired: Self.abandoned, ordering: .acquiringAndReleasing).exchanged
        }

        /// The committer of the batch before: false when the caller gave up.
        func promote() -> Bool {
            state.compareExchange(expected: Self.waiting, desired: Self.leading, ordering: .acquiringAndReleasing).exchanged
        }

        /// Woken to commit the next batch (its own first), not with its result.
        var isLeading: Bool { state.load(ordering: .acquiring) == Self.leading }
    }

    private let pool: DatabasePool
    /// The writes waiting for a batch, and whether a writer is committing
    /// one (then it, not a newcomer, hands the next batch on).
    private let pending = Mutex<(jobs: [Job], scheduled: Bool)>(([], false))
    /// The most writes one transaction takes, so one batch's latency stays bounded.
    let maxBatch: Int
    private let batchSizes = Mutex<(batches: Int, writes: Int)>((0, 0))
    private let failedBatchCount = Mutex(0)

    /// Seconds a write may wait for its batch.
    let deadline: Double

    init(pool: DatabasePool, maxBatch: Int = 256, deadline: Double = 3) {
        self.pool = pool
        self.maxBatch = maxBatch
        self.deadline = deadline
        // Made with the store, so that /metrics shows them from the start.
        _ = CommitMetrics.shared
    }

    /// Runs `work` inside the next batch and returns once it is committed.
    /// `committed` gets the result on the committer's thread, before any
    /// later batch commits and before this call returns: what it records
    /// follows the database's commit order.
    func write<T: Sendable>(_ work: @escaping (Database) throws -> T,
                            committed: ((T) -> Void)? = nil) throws -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { CommitMetrics.shared.writeDuration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start)) }
        let result = Mutex<T?>(nil)
        let job = Job({ db in
            let value = try work(db)
            result.withLock { $0 = value }
        }, committed: committed.map { committed in { committed(result.withLock { $0! }) } })
        let leads = pending.withLock { state in
            state.jobs.append(job)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if leads {
            commitNextBatch()
        } else {
            let limit = RequestDeadline.seconds(upTo: deadline)
            if job.done.wait(timeout: .now() + limit) == .timedOut {
                if job.abandon() { throw StorageError.deadlineExceeded(seconds: deadline) }
                job.done.wait()
            }
            // Asked to commit the next batch: it holds this job, first.
            if job.isLeading { commitNextBatch() }
        }
        if let failure = job.failure { throw failure }
        return result.withLock { $0! }
    }

    /// Batches committed so far and the writes they held (for tests and
    /// benchmarks).
    var statistics: (batches: Int, writes: Int) { batchSizes.withLock { $0 } }

    /// Writes waiting for a batch, given-up ones among them (for tests).
    var waitingCount: Int { pending.withLock { $0.jobs.count } }

    /// Batches of several writes whose commit failed, so that their writes
    /// were tried again one by one.
    var failedBatches: Int { failedBatchCount.withLock { $0 } }

    /// Commits the batch at the head of the queue, on this thread, then
    /// asks the first writer still waiting to commit the next one.
    private func commitNextBatch() {
        let batch = pending.withLock { state in
            let taken = Array(state.jobs.prefix(maxBatch))
            state.jobs.removeFirst(taken.count)
            return taken
        }
        let live = batch.filter { $0.take() }
        if !live.isEmpty { commit(live) }
        let next: Job? = pending.withLock { state in
            // Those that gave up are dropped: the batch takes none of them.
            let skipped = state.jobs.prefix { !$0.promote() }.count
            state.jobs.removeFirst(skipped)
            if state.jobs.isEmpty { state.scheduled = false }
            return state.jobs.first
        }
        next?.done.signal()
    }

    private func commit(_ batch: [Job]) {
        if let failure = commitTogether(batch), batch.count > 1, !Self.isBusy(failure) {
            // Nothing of the batch is stored: each write gets its own chance.
            // (Not when the file was locked: each would wait for it again.)
            failedBatchCount.withLock { $0 += 1 }
            CommitMetrics.shared.failures.increment()
            for job in batch {
                job.failure = nil
                commitTogether([job])
            }
        }
        // The committer's own job too: its semaphore is never waited on
        // again, and one left signalled is harmless.
        batch.forEach { $0.done.signal() }
    }

    private static func isBusy(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.resultCode == .SQLITE_BUSY
    }

    /// One transaction for `batch`; the error when it failed as a whole.
    @discardableResult
    private func commitTogether(_ batch: [Job]) -> (any Error)? {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { CommitMetrics.shared.duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start)) }
        do {
            try pool.write { db in
                for job in batch {
                    do {
                        try db.inSavepoint {
                            try job.work(db)
                            return .commit
                        }
                    } catch {
                        job.failure = error
                    }
                }
            }
            for job in batch where job.failure == nil { job.committed?() }
            batchSizes.withLock { $0 = ($0.batches + 1, $0.writes + batch.count) }
            CommitMetrics.shared.commits.increment()
            CommitMetrics.shared.batchSize.record(batch.count)
            return nil
        } catch {
            for job in batch { job.failure = error }
            return error
        }
    }
}
