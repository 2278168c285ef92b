import NIOCore
import NIOPosix
import Synchronization

/// Runs a `WebApplication`'s requests on threads of their own, so that a
/// request that hashes a password or waits for a commit never holds an
/// event loop, and bounds how many wait: past `maxWaiting`, a request is
/// answered `503` at once rather than queued behind minutes of work.
final class ApplicationRunner: Sendable {
    let application: any WebApplication
    /// The bodies being read for it.
    let bodies: BodyBudget
    private let threads: NIOThreadPool
    private let maxWaiting: Int
    private let inFlight = Atomic<Int>(0)

    init(application: any WebApplication, threads: Int, maxWaiting: Int, bodies: BodyBudget) {
        self.application = application
        self.bodies = bodies
        self.threads = NIOThreadPool(numberOfThreads: max(1, threads))
        self.maxWaiting = max(1, maxWaiting)
        self.threads.start()
    }

    /// The answer to `request`, completed on `loop`; nil when too many wait.
    func run(_ request: WebRequest, on loop: any EventLoop) -> EventLoopFuture<WebResponse>? {
        let (taken, _) = inFlight.wrappingAdd(1, ordering: .relaxed)
        guard taken < maxWaiting else {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            return nil
        }
        let application = application
        let answer = threads.runIfActive(eventLoop: loop) { application.respond(to: request) }
        answer.whenComplete { [self] _ in inFlight.wrappingSubtract(1, ordering: .relaxed) }
        return answer
    }

    func shutDown() async {
        try? await threads.shutdownGracefully()
    }
}
