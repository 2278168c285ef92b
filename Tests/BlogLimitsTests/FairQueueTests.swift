import Testing
import BlogLimits

/// The hashing threads take waiting hashes by owner in turn.
@Suite("FairQueue")
struct FairQueueTests {
    @Test func ownersTakeTurnsAndEachKeepsItsOrder() {
        var queue = FairQueue<String>()
        for item in ["a1", "a2", "a3", "a4"] { queue.append(item, for: "flood") }
        queue.append("b1", for: "user")
        queue.append("c1", for: "other")
        queue.append("b2", for: "user")
        var taken: [String] = []
        while let item = queue.next() { taken.append(item) }
        #expect(taken == ["a1", "b1", "c1", "a2", "b2", "a3", "a4"])
        #expect(queue.isEmpty)
    }

    /// A newcomer waits for at most one item of each owner ahead of it.
    @Test func aNewcomerIsNotStuckBehindAFlood() {
        var queue = FairQueue<Int>()
        for item in 0..<1000 { queue.append(item, for: "flood") }
        _ = queue.next()
        queue.append(-1, for: "user")
        #expect(queue.next() == 1)
        #expect(queue.next() == -1)
    }
}
