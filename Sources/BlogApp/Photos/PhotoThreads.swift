import CLinux
import Dispatch
import Foundation
import Synchronization

/// The threads photos are decoded and re-encoded on, at a lower CPU
/// priority (nice 10), as password hashes are.
///
/// A photo takes about 0.4 s of a core. On the application's own threads
/// it competed with the blog port's posts as an equal; at nice 10 it takes
/// what the posts leave (under an upload flood a client made 180–190
/// requests in 10 s against 148–160; docs/benchmarks.md).
/// `UploadBudget` bounds how many are decoded at once and refuses the
/// rest, so jobs here do not queue beyond that.
///
///     let result = PhotoThreads.shared.run { try? PhotoProcessor.process(bytes, declaredType: nil, limits: limits) }
final class PhotoThreads: Sendable {
    /// The one set the process uses: one thread per core (at most that
    /// many photos are decoded at once).
    static let shared = PhotoThreads(count: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// The nice value the threads run at.
    static let nice: Int32 = 10

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init(count: Int) {
        for index in 0 ..< count {
            let thread = Thread { [self] in
                _ = clinux_set_thread_nice(Self.nice)
                while true {
                    waiting.wait()
                    let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    job?()
                }
            }
            thread.name = "blogd.photo.\(index)"
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
