import NIOCore
import NIOPosix
import Testing
@testable import BlogWeb

/// The web server's tasks stay on its own event loop thread: the task
/// started with the executor (a reply that waits for a file or a health
/// check), its child tasks, and both again after a suspension elsewhere.
@Suite
struct EventLoopExecutorTests {
    @Test func aTaskAndItsChildrenRunOnTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let seen = await Task(executorPreference: EventLoopExecutor(loop)) {
            var seen = [loop.inEventLoop]
            await withTaskGroup(of: Bool.self) { children in
                children.addTask {
                    // Resumed after a suspension on the global executor's timer.
                    try? await Task.sleep(for: .milliseconds(1))
                    return loop.inEventLoop
                }
                children.addTask { loop.inEventLoop }
                for await onLoop in children { seen.append(onLoop) }
            }
            try? await Task.sleep(for: .milliseconds(1))
            seen.append(loop.inEventLoop)
            return seen
        }.value
        #expect(seen == [true, true, true, true])
        try await group.shutdownGracefully()
    }
}
