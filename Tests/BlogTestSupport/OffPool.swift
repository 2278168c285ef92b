import Foundation
import Testing

/// Threads for tests that block: each job on a thread of its own. Not a
/// concurrent Dispatch queue: that shares the default pool with Swift's
/// global executor, one thread a core on Linux, which does not replace a
/// blocked thread.
public final class BlockingExecutor: TaskExecutor, Sendable {
    public static let shared = BlockingExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }.start()
    }
}

/// Runs a suite's tests on `BlockingExecutor`, off Swift's global
/// executor, for tests that block a thread until a background sender's
/// batch is done (`sendDue()`, `stop()`). On a 2-core machine the global
/// executor has two threads; two such tests at once held both, and the
/// HTTP client's own tasks (AsyncHTTPClient registers and cancels requests
/// in unstructured tasks there) could never run: the whole suite hung.
///
///     @Suite(.offPool) struct SenderTests { @Test func sends() throws { ... } }
public struct OffPool: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffPool {
    /// See `OffPool`.
    public static var offPool: Self { OffPool() }
}
