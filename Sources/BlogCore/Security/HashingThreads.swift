import CLinux
import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads, one per core, that run every password hash of
/// the process.
///
/// scrypt needs a large buffer (16 MiB at the default cost). glibc keeps a
/// freed buffer of that size in the arena of the thread that freed it, and
/// a server has many threads; hashing on the same few threads every time
/// keeps that memory at one buffer per thread, and the number of hashes
/// running at once at one per core.
///
/// They run at a lower CPU priority (nice 10): a hash that may take 200 ms
/// yields to the work of cheap requests (a post, a reply), so a flood of
/// logins slows logins, not everyone.
final class HashingThreads: Sendable {
    /// The one set the process uses.
    static let shared = HashingThreads(count: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Threads, so hashes that run at once.
    let count: Int
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init(count: Int) {
        self.count = count
        for index in 0 ..< count {
            let thread = Thread { [self] in
                _ = clinux_set_thread_nice(10)
                while true {
                    waiting.wait()
                    let job = jobs.withLock { $0.removeFirst() }
                    job()
                }
            }
            thread.name = "blogd.scrypt.\(index)"
            thread.start()
        }
    }

    /// Runs `body` on one of the threads and waits for its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.withLock {
            $0.append {
                let value = body()
                result.withLock { $0 = value }
                done.signal()
            }
        }
        waiting.signal()
        done.wait()
        return result.withLock { $0! }
    }
}
