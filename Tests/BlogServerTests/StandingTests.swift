import BlogTestSupport
import Foundation
@testable import BlogServer
import BlogCore
import BlogSockets
import Testing
import BlogAuth
import BlogLimits

/// Addresses with a recent success go first in the hash lane, new ones
/// next, failing ones last; only the first may fill it.
@Suite("Standing")
struct StandingTests {
    private static func key(_ ip: String) throws -> AddressKey { AddressKey(try SocketAddress(ip: ip, port: 0)) }

    @Test func theLatestOutcomeWithinMemoryDecides() throws {
        let standing = AddressStanding(memory: 60)
        let a = try Self.key("192.0.2.1")
        let start = Moment(nanoseconds: 1)
        #expect(standing.standing(of: a, at: start) == .unknown)
        standing.record(.loginRefused, for: a, at: start)
        #expect(standing.standing(of: a, at: start) == .doubtful)
        standing.record(.nameTaken, for: a, at: start)
        #expect(standing.standing(of: a, at: start) == .doubtful, "a taken name says nothing")
        standing.record(.loggedIn, for: a, at: start)
        #expect(standing.standing(of: a, at: start) == .proven)
        standing.record(.loginRefused, for: a, at: start)
        #expect(standing.standing(of: a, at: start) == .doubtful, "a failure after it counts")
        #expect(standing.standing(of: a, at: start.adding(seconds: 61)) == .unknown)
        #expect(standing.count == 0)
        #expect(Standing.proven < .unknown && Standing.unknown < .doubtful)
    }

    @Test func memoryIsBounded() throws {
        let standing = AddressStanding(memory: 600, capacity: 100)
        let now = Moment(nanoseconds: 1)
        for index in 0..<1000 {
            standing.record(.loginRefused, for: try Self.key("10.0.\(index / 256).\(index % 256)"), at: now)
            #expect(standing.count <= 100)
        }
    }

    @Test func unprovenAddressesHoldAtMostHalfOfTheLane() {
        // Room for 10: 10 s of waiting, 1 s a hash, one thread.
        let lane = HashLane(maxWait: 10, concurrency: 64) { (1, 1) }
        #expect(lane.capacity == 10)
        let unproven = (0..<10).map { index in lane.reserve(index % 2 == 0 ? .unknown : .doubtful) }
        #expect(unproven.filter { $0 }.count == 5)
        #expect(lane.unprovenLoad == 5)
        let proven = (0..<10).map { _ in lane.reserve(.proven) }
        #expect(proven.filter { $0 }.count == 5, "the other half is there for the proven addresses")
        lane.cancel(.doubtful)
        #expect(lane.unprovenLoad == 4)
        #expect(lane.reserve(.proven), "a freed place is anyone's")
        #expect(!lane.reserve(.unknown))
    }

    /// A starved CPU makes a hash slow and the bound one place: the
    /// unproven share is then that place, and a proven request still gets
    /// in beside it (a web login flood once kept proven logins out so).
    @Test func aBoundOfOnePlaceStillAdmitsAProvenRequest() {
        let lane = HashLane(maxWait: 2, concurrency: 4) { (3, 1) }
        #expect(lane.capacity == 1)
        #expect(lane.reserve(.unknown))
        #expect(!lane.reserve(.doubtful), "the unproven share is the one place")
        #expect(lane.reserve(.proven), "the proven half is never taken by the unproven")
        #expect(!lane.reserve(.proven), "and the bound holds for the proven")
        lane.cancel(.unknown)
        #expect(!lane.reserve(.unknown), "a proven request holds the one place")
        lane.cancel(.proven)
        #expect(lane.reserve(.proven))
    }

    /// The router records how an address's hashes went, and over its hash
    /// budget an address takes no place in the lane at all.
    @Test func theServerTracksStandingAndChecksTheBudgetFirst() throws {
        let f = try ServerFixture {
            $0.budgetExempt = []
            $0.hashBurstPerAddress = 2
            $0.hashesPerAddressPerSecond = 0.001
        }
        defer { f.tearDown() }
        let router = try #require(f.server.router)
        let guesser = try Self.key("127.0.0.3")
        #expect(router.standing.standing(of: guesser, at: f.blog.clock.now) == .unknown)
        let client = try f.client(source: "127.0.0.3")
        try client.send("login:nobody:x[E];")
        #expect(try client.readReply() == "log:NA[E];")
        #expect(router.standing.standing(of: guesser, at: f.blog.clock.now) == .doubtful)

        let second = try f.client(source: "127.0.0.3")
        try second.send("register:somebody:pw[E];")
        #expect(try second.readReply() == "reg:OK[E];")
        #expect(router.standing.standing(of: guesser, at: f.blog.clock.now) == .proven, "a success clears it")

        // The register's place is given back just after its reply went
        // out: wait for that (an event) before the next request.
        #expect(waitUntil(timeout: 60) { router.hashing.load == 0 })
        // The budget (2) is spent: the next is refused before the lane.
        let third = try f.client(source: "127.0.0.3")
        try third.send("login:somebody:pw[E];")
        #expect(third.readToEnd().text == "err:BUSY[E];")
        #expect(router.hashing.load == 0, "the refused login took no place")
    }
}
