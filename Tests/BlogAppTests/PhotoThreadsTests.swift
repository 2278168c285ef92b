import Foundation
import Synchronization
import Testing
@testable import BlogApp

/// Photos are decoded at a low CPU priority, so an upload flood takes
/// what the blog port's posts leave.
@Suite("PhotoThreads")
struct PhotoThreadsTests {
    /// The calling thread's nice value, from /proc (Linux keeps one per
    /// thread).
    static func threadNice() -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // After the command's ")": field 3 (state) on; nice is field 19.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 16 ? Int(fields[16]) : nil
    }

    @Test func jobsRunAtNiceTenAndReturnTheirResult() {
        let caller = Self.threadNice()
        let seen = PhotoThreads.shared.run { Self.threadNice() }
        // At least 10: a test run started under `nice 19` cannot raise it.
        #expect((seen ?? 0) >= Int(PhotoThreads.nice))
        if let caller, caller < Int(PhotoThreads.nice) { #expect(seen != caller, "not run on the caller's own thread") }
    }

    @Test func jobsFromManyCallersEachGetTheirOwnResult() {
        let results = Mutex([Int: Int]())
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let square = PhotoThreads.shared.run { index * index }
            results.withLock { $0[index] = square }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 16)
        #expect(all.allSatisfy { $0.value == $0.key * $0.key })
    }
}
