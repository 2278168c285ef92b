import BlogCore
import BlogServer
import Foundation
import Testing
import BlogAuth

/// Many requests that block in the service at once.
@Suite("Bursts", .serialized)
struct BurstTests {
    /// 300 registers arrive together, each blocking its handler on scrypt
    /// and then on the group commit. libdispatch has 255 threads on Linux:
    /// when every request held one, the commit they all waited for never got
    /// a thread and the server hung for good. Handlers are capped
    /// (`maxConcurrentRequests`), so all 300 are answered.
    @Test func moreBlockingRequestsThanDispatchHasThreads() throws {
        let burst = 300
        let limit = Hostile.raiseOpenFileLimit()
        try #require(limit >= 2 * burst + 200, "open file limit \(limit) too low")
        let f = try ServerFixture(settings: .init(scrypt: ScryptParameters(logN: 10, r: 8, p: 1))) {
            $0.maxConnections = burst + 50
            $0.connection.readTimeout = 600
        }
        defer { f.tearDown() }
        let replies = Locked<[String]>([])
        // Bounds that only stop a broken test: with both cores busy the burst
        // takes 50-80 s here (the hashing threads run at nice 10).
        let finished = runOnThreads(burst, timeout: 900, prepare: { _ in try? f.client(timeout: 600) }) { index, client in
            guard let client else { return }
            let reply = (try? client.send("register:burst\(index):pw[E];")).flatMap { try? client.readReply() } ?? "no reply"
            replies.withLock { $0.append(reply) }
        }
        #expect(finished, "the burst did not finish")
        #expect(replies.value.count == burst)
        #expect(replies.value.allSatisfy { $0 == "reg:OK[E];" }, "\(Dictionary(grouping: replies.value) { $0 }.mapValues(\.count))")
        #expect(try f.store.allUsers().count == burst)
        // And the server still answers afterwards.
        #expect(try f.ask("login:burst0:pw[E];") == "log:OK[E];")
    }
}
