import BlogLimits
import Foundation

/// Where ActivityPub deliveries are signed: a thread of its own at nice 10
/// (`WorkerThreads`), below the blog port's and the pages' requests.
///
/// A delivery's RSA signature is most of its CPU (about 0.6 ms of a core);
/// a fan-out to 10,000 inboxes signs for seconds on end. On the outgoing
/// executor's queues that ran at the requests' priority, on every core,
/// and a post's p99 went up by half while a fan-out ran. One thread signs
/// at most one core's worth, and at nice 10 it takes what the requests
/// leave: deliveries slow down when the server is busy, posts do not.
/// (Dispatch's QoS does set a thread's nice value on Linux, measured:
/// `.background` 10, `.utility` 2; but a thread of our own also bounds
/// the signing to one core, and keeps it off the pool the requests'
/// Dispatch work runs on.)
///
///     let headers = try await SigningThreads.shared.run { try signer.signatureHeaders(...) }
public final class SigningThreads: Sendable {
    /// blogd's: one thread.
    public static let shared = SigningThreads(threads: 1)

    private let threads: WorkerThreads

    /// Starts `threads` signing threads at `nice`.
    public init(threads: Int, nice: Int32 = 10) {
        self.threads = WorkerThreads(name: "blogd.activitypub-signing", count: threads, nice: nice)
    }

    /// Runs `work` on a signing thread; the caller's task waits suspended.
    /// A cancelled caller still gets its result: the work is short.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            threads.submit {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
