import BlogSockets
@testable import BlogServer
import Testing
import BlogLimits

/// The pieces of the per-address budgets, without sockets or clocks.
@Suite("Budgets: keys, buckets, limits")
struct BudgetPartsTests {
    static func key(_ ip: String) throws -> AddressKey {
        AddressKey(try SocketAddress(ip: ip, port: 1))
    }

    @Test func ipv4AddressesAreTheirOwnKeys() throws {
        #expect(try Self.key("127.0.0.1") == Self.key("127.0.0.1"))
        #expect(try Self.key("127.0.0.1") != Self.key("127.0.0.2"))
        #expect(try Self.key("10.1.2.3").description == "10.1.2.3")
    }

    @Test func ipv6AddressesShareTheKeyOfTheirSlash64() throws {
        #expect(try Self.key("2001:db8:1:2::1") == Self.key("2001:db8:1:2:ffff:eeee:dddd:cccc"))
        #expect(try Self.key("2001:db8:1:2::1") != Self.key("2001:db8:1:3::1"))
        #expect(try Self.key("2001:db8:1:2::1").description == "2001:db8:1:2::/64")
    }

    @Test func anIPv4MappedPeerCountsAsItsIPv4Address() throws {
        #expect(try Self.key("::ffff:192.0.2.7") == Self.key("192.0.2.7"))
        #expect(try Self.key("::ffff:192.0.2.7") != Self.key("::192.0.2.7"))
    }

    @Test func aBucketGivesItsBurstThenItsRate() throws {
        var buckets = TokenBuckets(rate: 2, burst: 3)
        let address = try Self.key("192.0.2.1")
        let start = Moment(nanoseconds: 1_000_000_000)
        var taken: [Bool] = []
        for _ in 0..<5 { taken.append(buckets.take(for: address, at: start)) }
        #expect(taken == [true, true, true, false, false])
        let afterHalf = buckets.take(for: address, at: start.adding(seconds: 0.5))
        let again = buckets.take(for: address, at: start.adding(seconds: 0.5))
        #expect(afterHalf, "2 a second: one after half a second")
        #expect(!again)
        // A long quiet spell refills to the burst, no more.
        let later = start.adding(seconds: 100)
        taken = []
        for _ in 0..<4 { taken.append(buckets.take(for: address, at: later)) }
        #expect(taken == [true, true, true, false])
    }

    @Test func eachAddressHasItsOwnBucket() throws {
        var buckets = TokenBuckets(rate: 1, burst: 1)
        let now = Moment(nanoseconds: 5)
        let first = buckets.take(for: try Self.key("192.0.2.1"), at: now)
        let second = buckets.take(for: try Self.key("192.0.2.1"), at: now)
        let other = buckets.take(for: try Self.key("192.0.2.2"), at: now)
        #expect(first && !second && other)
    }

    /// A flood from ever new addresses cannot grow the table without bound.
    @Test func bucketsOfManyAddressesStayWithinCapacity() throws {
        var buckets = TokenBuckets(rate: 1, burst: 2, capacity: 100)
        let now = Moment(nanoseconds: 5)
        for index in 0..<1000 {
            let address = try Self.key("10.0.\(index / 256).\(index % 256)")
            let taken = buckets.take(for: address, at: now)
            #expect(taken)
            #expect(buckets.count <= 100)
        }
    }

    @Test func connectionLimitsCountPerAddressAndInAll() throws {
        let limits = ConnectionLimits(maxConnections: 3, maxPerAddress: 2)
        let a = try Self.key("192.0.2.1"), b = try Self.key("192.0.2.2")
        #expect(limits.admit(from: a) == .served)
        #expect(limits.admit(from: a) == .served)
        #expect(limits.admit(from: a) == .rejected, "a's own limit")
        #expect(limits.admit(from: b) == .served)
        #expect(limits.admit(from: b) == .rejected, "the limit in all")
        #expect(limits.openCount(from: a) == 2)
        limits.release(.served, from: a)
        limits.release(.rejected, from: a)
        #expect(limits.admit(from: b) == .served)
        #expect(limits.openCount(from: b) == 2)
        #expect(limits.openCount == 4, "3 served, 1 rejected still closing")
    }

    @Test func exemptAddressesHaveNoBudgetOfTheirOwn() throws {
        let local = try Self.key("127.0.0.1"), other = try Self.key("192.0.2.1")
        let limits = ConnectionLimits(maxConnections: 10, maxPerAddress: 1, exempt: [local])
        #expect((0..<5).map { _ in limits.admit(from: local) } == Array(repeating: .served, count: 5))
        #expect(limits.admit(from: other) == .served)
        #expect(limits.admit(from: other) == .rejected)
        for _ in 0..<5 { limits.release(.served, from: local) }
        #expect(limits.openCount == 2, "one served and one rejected of the other")
        let hashes = AddressBudget(perSecond: 1, burst: 1, exempt: [local])
        let now = Moment(nanoseconds: 1)
        #expect((0..<5).allSatisfy { _ in hashes.take(for: local, at: now) })
        #expect(hashes.take(for: other, at: now))
        #expect(!hashes.take(for: other, at: now))
    }
}
