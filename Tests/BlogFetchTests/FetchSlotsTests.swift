@testable import BlogFetch
import Testing

@Suite struct FetchSlotsTests {
    /// A host past its share waits, another host goes ahead, and the
    /// waiter gets the slot its host gives back.
    @Test func perHostAndTotalBounds() async throws {
        let slots = FetchSlots(total: 2, perHost: 1)
        try await slots.acquire(host: "a")
        let waiter = Task { try await slots.acquire(host: "a") }
        try await slots.acquire(host: "b")
        #expect(await slots.underWay == 2)
        await slots.release(host: "b")
        #expect(await slots.underWay == 1, "b's slot goes to nobody: the waiter's host is still full")
        await slots.release(host: "a")
        try await waiter.value
        #expect(await slots.underWay == 1)
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
        let slots = FetchSlots(total: 1, perHost: 1)
        try await slots.acquire(host: "a")
        let waiter = Task { try await slots.acquire(host: "a") }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await slots.release(host: "a")
        #expect(await slots.underWay == 0)
    }
}
