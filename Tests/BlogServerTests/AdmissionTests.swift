@testable import BlogServer
import BlogCore
import BlogSockets
import Testing
import BlogLimits

/// A full table is no wall: a newcomer from an address under its fair share
/// takes the place of the connection that has waited longest for a
/// message, from an address over its share.
@Suite("Admission")
struct AdmissionTests {
    private static func key(_ ip: String) throws -> AddressKey { AddressKey(try SocketAddress(ip: ip, port: 0)) }

    // MARK: The parts

    @Test func fairShareSplitsTheTableAmongAddresses() throws {
        let limits = ConnectionLimits(maxConnections: 4, maxPerAddress: 32)
        let crowd = try Self.key("192.0.2.1"), newcomer = try Self.key("192.0.2.2")
        for _ in 0..<4 { #expect(limits.admit(from: crowd) == .served) }
        #expect(limits.fairShare == 4)
        #expect(limits.evictable(crowd), "it holds its share: a newcomer may take from it")
        // A fifth from the same address is over its share: no eviction asked.
        var asked = false
        #expect(limits.admit(from: crowd, evicting: { asked = true; return false }) == .rejected)
        #expect(!asked)
        // A newcomer is under its share: it may evict, and once a place is
        // freed, it is served.
        var crowdEvictable = false
        let admission = limits.admit(from: newcomer, evicting: {
            asked = true
            crowdEvictable = limits.evictable(crowd)
            limits.handOver(from: crowd)
            return true
        })
        #expect(admission == .served)
        #expect(asked)
        #expect(crowdEvictable, "two addresses: 2 each, the crowd holds 4")
        // Over half its share, the crowd may not take a place back.
        var askedAgain = false
        #expect(limits.admit(from: crowd, evicting: { askedAgain = true; return false }) == .rejected)
        #expect(!askedAgain)
        #expect(limits.openCount(from: crowd) == 3)
        #expect(limits.openCount(from: newcomer) == 1)
    }

    @Test func noEvictionMeansRejected() throws {
        let limits = ConnectionLimits(maxConnections: 2, maxPerAddress: 32)
        let a = try Self.key("192.0.2.1"), b = try Self.key("192.0.2.2")
        #expect(limits.admit(from: a) == .served)
        #expect(limits.admit(from: a) == .served)
        #expect(limits.admit(from: b, evicting: { false }) == .rejected)
        #expect(limits.openCount(from: b) == 0, "the per-address place is given back")
    }

    @Test func idleQueueFindsTheLongestWaitingLiveEntry() {
        var queue = IdleQueue()
        for token in UInt64(1)...5 { queue.append(token, since: Moment(nanoseconds: token)) }
        let stale: Set<UInt64> = [1, 3]
        let found = queue.first(scanning: 10, dropping: { stale.contains($0.token) }) { $0.token == 4 ? .take : .skip }
        #expect(found?.token == 4)
        #expect(queue.count == 4, "the stale head is dropped, the one behind a live entry stays")
        let none = queue.first(scanning: 10, dropping: { stale.contains($0.token) }) { _ in .stop }
        #expect(none == nil)
        queue.removeAll { stale.contains($0.token) }
        #expect(queue.count == 3)
    }

    @Test func machineEvictsOnlyAnIdleConnection() {
        let now = Moment(nanoseconds: 1_000)
        var idle = ConnectionMachine(options: .init())
        _ = idle.start(at: now)
        let actions = idle.evict(at: now)
        #expect(actions.contains(.refuse(.busy)), "no busy delay: it has waited already")
        #expect(idle.phase != .open)

        var busy = ConnectionMachine(options: .init())
        _ = busy.start(at: now)
        _ = busy.received(Array("login:a:b[E];".utf8), at: now)
        #expect(!busy.isIdle)
        #expect(busy.evict(at: now).isEmpty)
        #expect(busy.phase == .open)
    }

    // MARK: The server

    /// A crowd from one address fills the table with silent connections; a
    /// newcomer from another address is served once they have waited
    /// `evictIdleAfter`, and the longest waiting gets err:BUSY.
    @Test func newcomerEvictsTheLongestIdleConnection() throws {
        let f = try ServerFixture {
            $0.maxConnections = 4
            $0.budgetExempt = []
            $0.evictIdleAfter = 1
            $0.eventLoops = 1
        }
        defer { f.tearDown() }
        var held: [TestClient] = []
        for _ in 0..<4 {
            let before = f.server.acceptedConnections
            held.append(try f.client(source: "127.0.0.3"))
            #expect(eventually { f.server.acceptedConnections > before })
        }
        #expect(eventually { f.server.connectionCount == 4 })

        // Not idle long enough yet: first come, first served.
        let early = try f.client(source: "127.0.0.2")
        try early.send("bench:probe[E];")
        #expect(early.readToEnd().text == "err:BUSY[E];")
        f.advance(by: 1.5)
        #expect(f.server.refusalCounts.evicted == 0)

        let newcomer = try f.client(source: "127.0.0.2")
        try newcomer.send("bench:probe[E];")
        #expect(newcomer.readToEnd().text == "err:CMD[E];")
        // The oldest of the crowd made room, told so at once.
        #expect(held[0].readToEnd() == ("err:BUSY[E];", .eof))
        #expect(f.server.refusalCounts.evicted == 1)
        // The others are still served.
        try held[1].send("bench:probe[E];")
        #expect(try held[1].readReply() == "err:CMD[E];")
    }

    /// An address at its fair share evicts nobody: it gets err:BUSY.
    @Test func anAddressAtItsShareCannotEvict() throws {
        let f = try ServerFixture {
            $0.maxConnections = 4
            $0.budgetExempt = []
            $0.evictIdleAfter = 1
            $0.eventLoops = 1
        }
        defer { f.tearDown() }
        for source in ["127.0.0.3", "127.0.0.3", "127.0.0.4", "127.0.0.4"] {
            let before = f.server.acceptedConnections
            _ = try f.client(source: source)
            #expect(eventually { f.server.acceptedConnections > before })
        }
        f.advance(by: 2)
        let more = try f.client(source: "127.0.0.3")
        try more.send("bench:probe[E];")
        #expect(more.readToEnd().text == "err:BUSY[E];")
        #expect(f.server.refusalCounts.evicted == 0)
        #expect(f.server.refusalCounts.overLimit == 1)
    }

    /// A connection being served is never evicted, however long it takes.
    @Test func aConnectionInHandIsNotEvicted() throws {
        let f = try ServerFixture {
            $0.maxConnections = 1
            $0.budgetExempt = []
            $0.evictIdleAfter = 1
            $0.eventLoops = 1
        }
        defer { f.tearDown() }
        let slow = try f.client(source: "127.0.0.3")
        try slow.send("newpost:nobody:t:c[E];")
        #expect(try slow.readReply() == "post:NA[E];")
        f.advance(by: 5)
        // Closed after its reply (no keep-alive) and the linger; a newcomer is served.
        #expect(eventually { f.server.connectionCount == 0 })
        #expect(try f.ask("bench:probe[E];") == "err:CMD[E];")
    }
}
