import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// The per-server backoff, the same on every backend: a settle in which a
/// server did not answer moves that server's due deliveries to the retry
/// time, in the same write (at most `HostsDown.rowsPerHold` of them), and
/// leaves other servers' deliveries (under the same host key too), those
/// under a claim's lease and those waiting out their own backoff alone.
@Suite("BlogStorage conformance: a host that did not answer is held back")
struct DeliveryHostBackoffConformanceTests {
    /// Alice's post fanned out to three inboxes on a.x.example, two on
    /// b.x.example (one host: x.example) and three on c.example, in that
    /// order (by inbox).
    private func fannedOut(_ store: any BlogStorage) throws {
        try fanOutAlicesPost(store, inboxes: [("a.x", 3), ("b.x", 2), ("c", 3)])
    }

    private func queued(_ store: any BlogStorage) throws -> [String: OutgoingDelivery] {
        Dictionary(uniqueKeysWithValues: try store.queuedDeliveries(limit: 100).map { ($0.inbox, $0) })
    }

    private func inbox(_ host: String, _ index: Int) -> String { "https://\(host).example/u\(index)/inbox" }

    @Test(arguments: Backend.available) func subdomainsOfOneNameAreOneHostForTheCap(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            try fannedOut(store)
            let all = try store.queuedDeliveries(limit: 100)
            #expect(Set(all.filter { $0.inbox.contains(".x.example/") }.map(\.host)) == ["x.example"])
            let claimed = try store.claimDeliveries(dueBy: t0, lease: 30, limit: 64, skippingHosts: [], perHost: 2)
            #expect(claimed.map(\.host) == ["x.example", "x.example", "c.example", "c.example"],
                    "a.x.example and b.x.example share one host's two")
            let past = try store.claimDeliveries(dueBy: t0, lease: 30, limit: 64, skippingHosts: ["x.example"],
                                                 perHost: 9)
            #expect(past.map(\.inbox) == [inbox("c", 2)], "skipping x.example passes both subdomains by")
        }
    }

    @Test(arguments: Backend.available) func aHostThatDidNotAnswerTakesItsDueDeliveriesWithIt(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            try fannedOut(store)
            let claimed = try store.claimDeliveries(dueBy: t0, lease: 30, limit: 64, skippingHosts: [], perHost: 2)
            let (x0, x1, c0) = (claimed[0], claimed[1], claimed[2])
            #expect([x0.inbox, x1.inbox, c0.inbox] == [inbox("a.x", 0), inbox("a.x", 1), inbox("c", 0)])
            // x0's host did not answer; x1 and c1 are still being sent (leased to t0 + 30).
            let retry = t0 + 60, now = t0 + 5
            try store.settleDeliveries([(x0, .hostDown(retryAt: retry, now: now)), (c0, .done)])

            let after = try queued(store)
            #expect(after.count == 7)
            #expect(after[inbox("a.x", 0)]?.due == retry && after[inbox("a.x", 0)]?.attempts == 1)
            #expect(after[inbox("a.x", 2)]?.due == retry && after[inbox("a.x", 2)]?.attempts == 0,
                    "held back with its server")
            for other in [inbox("b.x", 0), inbox("b.x", 1)] {
                #expect(after[other]?.due == t0, "\(other): another server under the same host key goes on")
            }
            #expect(after[inbox("a.x", 1)]?.due == t0 + 30, "under a claim's lease: left alone")
            #expect(after[inbox("c", 1)]?.due == t0 + 30, "another host's claim: left alone")
            #expect(after[inbox("c", 2)]?.due == t0, "another host's due delivery: left alone")
            #expect(try store.deliveryCounts().heldBack == 1, "a.x2 held back (x0 is its own retry)")

            let next = try store.claimDeliveries(dueBy: t0 + 10, lease: 30, limit: 64, skippingHosts: [], perHost: 9)
            #expect(next.map(\.inbox) == [inbox("b.x", 0), inbox("b.x", 1), inbox("c", 2)],
                    "the front of the queue is the other servers'")
            #expect(try store.claimDeliveries(dueBy: retry, lease: 30, limit: 64, skippingHosts: [], perHost: 9)
                .count == 7, "all due again by the retry (the leases ran out too)")
        }
    }

    @Test(arguments: Backend.available) func aPlainRetryAStaleClaimAndAnOwnBackoffAreNotHeldBack(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            try fannedOut(store)
            let first = try store.claimDeliveries(dueBy: t0, lease: 30, limit: 64, skippingHosts: [], perHost: 1)
            let (x0, c0) = (first[0], first[1])
            // A retry that says nothing of the host (a 401: it answered).
            try store.settleDeliveries([(x0, .retry(at: t0 + 20))])
            #expect(try queued(store)[inbox("a.x", 1)]?.due == t0, "a plain retry holds nothing back")

            // A stale claim's report changes nothing, its host's rows neither.
            var stale = c0
            stale.attempts = 0
            try store.settleDeliveries([(stale, .hostDown(retryAt: t0 + 60, now: t0 + 5))])
            let unchanged = try queued(store)
            #expect(unchanged[inbox("c", 0)]?.due == t0 + 30 && unchanged[inbox("c", 1)]?.due == t0)
            #expect(try store.deliveryCounts().heldBack == 0, "neither a plain retry nor a stale claim holds back")

            // x0 waits out its own backoff (to t0 + 20) when x.example fails again.
            let second = try store.claimDeliveries(dueBy: t0, lease: 30, limit: 64, skippingHosts: ["c.example"],
                                                   perHost: 1)
            #expect(second.map(\.inbox) == [inbox("a.x", 1)])
            try store.settleDeliveries([(second[0], .hostDown(retryAt: t0 + 120, now: t0 + 5))])
            let after = try queued(store)
            #expect(after[inbox("a.x", 0)]?.due == t0 + 20, "its own backoff: left alone")
            #expect(after[inbox("a.x", 1)]?.due == t0 + 120)
            #expect(after[inbox("a.x", 2)]?.due == t0 + 120, "held back with its server")
            #expect(after[inbox("b.x", 0)]?.due == t0 && after[inbox("b.x", 1)]?.due == t0, "another server: left alone")
            #expect(after[inbox("c", 1)]?.due == t0 && after[inbox("c", 2)]?.due == t0)
            #expect(try store.deliveryCounts().heldBack == 1)
        }
    }

    /// A hostile server with thousands of inboxes: one failed try moves at
    /// most `HostsDown.rowsPerHold` of its deliveries, so one settle holds
    /// the writer for a few milliseconds; the next failure takes the next.
    @Test(arguments: Backend.available) func aHoldMovesABoundedNumberOfRows(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let count = HostsDown.rowsPerHold + 3
            try fanOutAlicesPost(store, inboxes: [("many", count)])
            let first = try #require(try store.claimDeliveries(dueBy: t0, lease: 30, limit: 1).first)
            let retry = t0 + 60
            try store.settleDeliveries([(first, .hostDown(retryAt: retry, now: t0 + 5))])
            let held = try store.queuedDeliveries(limit: 1000).filter { $0.due == retry && $0.attempts == 0 }
            #expect(held.count == HostsDown.rowsPerHold)
            #expect(try store.deliveryCounts().heldBack == HostsDown.rowsPerHold)
            #expect(try store.claimDeliveries(dueBy: t0 + 10, lease: 30, limit: 64).count == count - 1 - HostsDown.rowsPerHold)
        }
    }
}
