import BlogFetch
import BlogTestSupport
import Dispatch
import Foundation
import NIOPosix
import Synchronization
import Testing

/// The fetcher's time limit is kept on its requests' event loop: an
/// answer that ended there before the limit is taken, however late the
/// fetch's own task gets to run (a starved machine: the deliveries' loop
/// at nice 10, their tasks behind everything else).
@Suite struct FetchDeadlineTests {
    /// The answer ends on the loop; then the limit expires; then the
    /// fetch's tasks run, the limit's first (the order a busy machine may
    /// pick). The answer is taken: the limit found nothing left to end.
    /// (Before, the limit was a task of its own racing the answer's, and
    /// the first to run won: a delivery that had arrived counted as timed
    /// out, was retried and arrived twice.)
    @Test func anAnswerThatEndedBeforeTheLimitIsTaken() async throws {
        let answer = DispatchSemaphore(value: 0)
        let server = try HTTPStubServer { _ in
            answer.wait()
            return .init(status: 202, body: Array("ok".utf8))
        }
        defer { server.stop() }
        let expiry = ExpiryGate()
        let fetcher = OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true),
                                      expiry: expiry.wait)
        let executor = HeldExecutor()
        let fetch = Task(executorPreference: executor) {
            try await fetcher.post(server.url("/inbox"), headers: [("Content-Type", "application/activity+json")],
                                   body: Array("{}".utf8))
        }
        #expect(await waitUntilAsync { server.requests.count == 1 })
        executor.hold()
        answer.signal()
        #expect(await waitUntilAsync { executor.heldCount == 1 }, "the answer ended on the loop, its task waits")
        expiry.expire()
        #expect(await waitUntilAsync { executor.heldCount == 2 }, "the limit's task waits too")
        executor.releaseNewestFirst()
        let response = try await fetch.value
        #expect(response.status == 202 && response.text == "ok")
    }

    /// The limit is decided on the request's own event loop: with that
    /// loop busy (as a starved nice-10 loop is), a limit that is up waits
    /// for it, and ends the fetch only once the loop runs again.
    @Test func theLimitWaitsForTheRequestsLoop() async throws {
        let answer = DispatchSemaphore(value: 0)
        let server = try HTTPStubServer { _ in
            answer.wait()
            return .init(status: 202)
        }
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let expiry = ExpiryGate()
        let fetcher = OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true),
                                      eventLoopGroup: loops, expiry: expiry.wait)
        let loopFree = Mutex(false)
        let fetch = Task { () -> Bool in
            do {
                _ = try await fetcher.post(server.url("/inbox"), headers: [], body: Array("{}".utf8))
            } catch let error as FetchError {
                guard case .timedOut = error else { Issue.record("\(error)"); return false }
            } catch {
                Issue.record("\(error)")
                return false
            }
            return loopFree.withLock { $0 }
        }
        #expect(await waitUntilAsync { server.requests.count == 1 })
        let busy = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        loops.next().execute {
            entered.signal()
            busy.wait()
        }
        entered.wait()
        expiry.expire()
        loopFree.withLock { $0 = true }
        busy.signal()
        #expect(await fetch.value, "timed out only once its loop ran again")
        answer.signal()
        server.stop()
        try await loops.shutdownGracefully()
    }

    /// The limit's own timer (no test gate): a server that never answers
    /// fails the fetch with `timedOut` (wherever the exchange was when the
    /// second was up: on a busy machine, maybe still connecting).
    @Test func theLoopsTimerEndsAnAnswerThatNeverComes() async throws {
        let answer = DispatchSemaphore(value: 0)
        let server = try HTTPStubServer { _ in
            answer.wait()
            return .init(status: 202)
        }
        defer {
            answer.signal()
            server.stop()
        }
        let fetcher = OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(1), allowPrivateAddresses: true))
        do {
            _ = try await fetcher.post(server.url("/inbox"), headers: [], body: Array("{}".utf8))
            Issue.record("answered")
        } catch {
            guard case .timedOut = error else { Issue.record("\(error)"); return }
        }
    }
}

/// `waitUntil` on a thread of its own, not one of the few the tasks share;
/// its ten minutes are a safety net, not a deadline the test relies on.
private func waitUntilAsync(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: waitUntil(timeout: 600, condition)) }.start()
    }
}

/// A task executor the test can hold: jobs enqueued while held are kept,
/// and released all at once, newest first (the order that favours the
/// fetch's time limit over its answer); otherwise jobs run at once on a
/// serial queue.
private final class HeldExecutor: TaskExecutor, @unchecked Sendable {
    private let lock = NSLock()
    private var held: [UnownedJob]?
    private let queue = DispatchQueue(label: "test-held-executor")

    var heldCount: Int { lock.withLock { held?.count ?? 0 } }

    func hold() { lock.withLock { held = [] } }

    func releaseNewestFirst() {
        let jobs = lock.withLock {
            defer { held = nil }
            return held ?? []
        }
        queue.async {
            for job in jobs.reversed() { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let kept = lock.withLock {
            guard held != nil else { return false }
            held!.append(job)
            return true
        }
        if !kept { queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }
}
