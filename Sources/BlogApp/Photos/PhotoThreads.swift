import BlogLimits
import Foundation

/// The threads photos are decoded and re-encoded on: one per core, at
/// nice 10 as password hashes are (`WorkerThreads`).
///
/// A photo takes about 0.4 s of a core. On the application's own threads
/// it competed with the blog port's posts as an equal; at nice 10 it takes
/// what the posts leave (under an upload flood a client made 180–190
/// requests in 10 s against 148–160; docs/benchmarks.md).
/// `UploadBudget` bounds how many are decoded at once and refuses the
/// rest, so jobs here do not queue beyond that.
///
///     let result = PhotoThreads.shared.run { try? PhotoProcessor.process(bytes, declaredType: nil, limits: limits) }
enum PhotoThreads {
    /// The nice value the threads run at.
    static let nice: Int32 = 10

    /// The one set the process uses (at most that many photos are decoded at once).
    static let shared = WorkerThreads(name: "blogd.photo", count: ProcessInfo.processInfo.activeProcessorCount,
                                        nice: nice)
}
