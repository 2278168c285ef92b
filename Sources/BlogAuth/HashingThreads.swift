import CLinux
import Dispatch
import Foundation
import Synchronization
import BlogModel

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
package final class HashingThreads: Sendable {
    /// The one set the process uses.
    package static let shared = HashingThreads(count: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Threads, so hashes that run at once.
    package let count: Int
    /// Waiting hashes by the standing of their address, best first.
    private let queues = Mutex(Standing.allCases.map { _ in FairQueue<@Sendable () -> Void>() })
    private let waiting = DispatchSemaphore(value: 0)

    private init(count: Int) {
        self.count = count
        for index in 0 ..< count {
            let thread = Thread { [self] in
                _ = clinux_set_thread_nice(10)
                while true {
                    waiting.wait()
                    let job = queues.withLock { queues -> (@Sendable () -> Void)? in
                        for index in queues.indices {
                            if let job = queues[index].next() { return job }
                        }
                        return nil
                    }
                    job?()
                }
            }
            thread.name = "blogd.scrypt.\(index)"
            thread.start()
        }
    }

    /// Runs `body` on one of the threads and waits for its result. Waiting
    /// hashes are taken in turn by `owner` (the client's address), so a
    /// flood from one address delays another by no more than the hashes
    /// already running; and by `standing`, best first, so a flood of
    /// guesses from many addresses cannot starve a real user's login.
    package func run<T: Sendable>(for owner: String, standing: Standing = .proven, _ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let job: @Sendable () -> Void = {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        queues.withLock { $0[standing.rawValue].append(job, for: owner) }
        waiting.signal()
        done.wait()
        return result.withLock { $0! }
    }
}

/// A queue that takes items by owner in turn: first the oldest item of
/// the owner whose turn it is, then the next owner's.
package struct FairQueue<Item> {
    private var items: [String: [Item]] = [:]
    /// Owners with items, in the order their turns come.
    private var turns: [String] = []
    private var head = 0

    package var isEmpty: Bool { head == turns.count }

    package mutating func append(_ item: Item, for owner: String) {
        if items[owner, default: []].isEmpty { turns.append(owner) }
        items[owner, default: []].append(item)
    }

    package mutating func next() -> Item? {
        guard head < turns.count else { return nil }
        let owner = turns[head]
        head += 1
        let item = items[owner]!.removeFirst()
        if items[owner]!.isEmpty {
            items[owner] = nil
        } else {
            turns.append(owner)
        }
        if head > 64 && head * 2 > turns.count {
            turns.removeFirst(head)
            head = 0
        }
        return item
    }
}
