import BlogLimits
import NIOCore
import NIOPosix
import Synchronization

/// Runs a `WebApplication`'s requests on threads of their own, so that a
/// request that hashes a password or waits for a commit never holds an
/// event loop, and bounds how many wait: past `maxWaiting`, a request is
/// answered `503` at once rather than queued behind minutes of work.
/// Requests that wait for a password hash (logins) have a pool and a
/// bound of their own: a crowd of logins never holds up the others.
final class ApplicationRunner: Sendable {
    let application: any WebApplication
    /// The bodies being read for it.
    let bodies: BodyBudget
    /// How long a refusal given on a request's head is held.
    let refusalDelay: TimeAmount
    private let others: Pool
    private let logins: Pool

    init(application: any WebApplication, threads: Int, maxWaiting: Int, bodies: BodyBudget,
         refusalDelay: TimeAmount = .seconds(1)) {
        self.application = application
        self.bodies = bodies
        self.refusalDelay = refusalDelay
        others = Pool(threads: threads, maxWaiting: maxWaiting)
        logins = Pool(threads: threads, maxWaiting: maxWaiting)
    }

    /// The answer to `request`, completed on `loop`; nil when too many wait.
    func run(_ request: WebRequest, on loop: any EventLoop) -> EventLoopFuture<WebResponse>? {
        let application = application
        let pool = application.waitsForPasswordHash(request) ? logins : others
        return pool.run(on: loop) { application.respond(to: request) }
    }

    func shutDown() async {
        await others.shutDown()
        await logins.shutDown()
    }

    /// Threads and the count of requests admitted to them.
    private final class Pool: Sendable {
        private let threads: NIOThreadPool
        private let maxWaiting: Int
        private let inFlight = Atomic<Int>(0)

        init(threads: Int, maxWaiting: Int) {
            self.threads = NIOThreadPool(numberOfThreads: max(1, threads))
            self.maxWaiting = max(1, maxWaiting)
            self.threads.start()
        }

        func run(on loop: any EventLoop, _ work: @escaping @Sendable () -> WebResponse) -> EventLoopFuture<WebResponse>? {
            let (taken, _) = inFlight.wrappingAdd(1, ordering: .relaxed)
            guard taken < maxWaiting else {
                inFlight.wrappingSubtract(1, ordering: .relaxed)
                return nil
            }
            let answer = threads.runIfActive(eventLoop: loop, work)
            answer.whenComplete { [self] _ in inFlight.wrappingSubtract(1, ordering: .relaxed) }
            return answer
        }

        func shutDown() async {
            try? await threads.shutdownGracefully()
        }
    }
}
