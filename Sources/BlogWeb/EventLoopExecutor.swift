import NIOCore

/// A Swift task executor that runs jobs on one NIO event loop.
///
/// A reply that must wait (a file to read, a health check) is made in a
/// Swift task. Left alone, such tasks run on the global concurrent
/// executor, which on Linux is Dispatch's thread pool: the very threads
/// the blog protocol's requests run on. Started with this executor as its
/// preference, the task and every child task it makes run on the web
/// server's own event loop instead, beside the connection's socket.
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
