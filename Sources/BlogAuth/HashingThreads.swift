import BlogLimits
import Foundation

/// The threads that run every password hash of the process: one per core,
/// at nice 10 (`WorkerThreads`), waiting hashes taken by the standing of
/// their address, best first, then by address in turn.
///
/// scrypt needs a large buffer (16 MiB at the default cost). glibc keeps a
/// freed buffer of that size in the arena of the thread that freed it, and
/// a server has many threads; hashing on the same few threads every time
/// keeps that memory at one buffer per thread, and the number of hashes
/// running at once at one per core.
package enum HashingThreads {
    /// The one set the process uses.
    package static let shared = WorkerThreads(name: "blogd.scrypt", count: ProcessInfo.processInfo.activeProcessorCount,
                                              ranks: Standing.allCases.count)
}

extension WorkerThreads {
    /// Runs `body` among the hashes and waits for its result. Waiting
    /// hashes are taken in turn by `owner` (the client's address), so a
    /// flood from one address delays another by no more than the hashes
    /// already running; and by `standing`, best first, so a flood of
    /// guesses from many addresses cannot starve a real user's login.
    package func run<T: Sendable>(for owner: String, standing: Standing = .proven,
                                  _ body: @escaping @Sendable () -> T) -> T {
        run(rank: standing.rawValue, owner: owner, body)
    }
}
