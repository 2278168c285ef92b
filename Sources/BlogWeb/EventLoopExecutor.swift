import NIOCore

/// A Swift task executor that runs jobs on one NIO event loop.
///
/// Hummingbird runs each connection's request handling as a Swift task.
/// Left alone, those tasks run on the global concurrent executor, which on
/// Linux is Dispatch's thread pool: the very threads the blog protocol's
/// requests run on. Started with this executor as its preference, the
/// server's task and every child task it makes (one per connection) run on
/// the web server's own event loop instead, beside its sockets.
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
