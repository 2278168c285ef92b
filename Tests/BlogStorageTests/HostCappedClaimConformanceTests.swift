import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Claims bounded per host, the same on every backend: a claim passes the
/// hosts it is told to skip by and takes at most `perHost` deliveries of
/// any other, in due order; what it leaves stays due for a later claim.
@Suite("BlogStorage conformance: claims bounded per host")
struct HostCappedClaimConformanceTests {
    /// Alice's post fanned out to five inboxes on a.example, three on
    /// b.example and one on c.example (in that order: by inbox).
    private func fannedOut(_ store: any BlogStorage) throws {
        try fanOutAlicesPost(store, inboxes: [("a", 5), ("b", 3), ("c", 1)])
    }

    private func hosts(_ claimed: [OutgoingDelivery]) -> [String] { claimed.map(\.host) }

    @Test(arguments: Backend.available) func aClaimTakesAtMostSoManyOfAHost(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            try fannedOut(store)
            let first = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 64, skippingHosts: [], perHost: 2)
            #expect(hosts(first) == ["a.example", "a.example", "b.example", "b.example", "c.example"])
            #expect(first.allSatisfy { $0.attempts == 1 && $0.due == t0 + 60 })
            #expect(first.map(\.inbox).prefix(2) == ["https://a.example/u0/inbox", "https://a.example/u1/inbox"],
                    "the earliest due of a host first")

            let second = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 64, skippingHosts: ["a.example"],
                                                   perHost: 2)
            #expect(hosts(second) == ["b.example"], "a.example passed by; b.example's last; nothing claimed twice")

            let third = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 64, skippingHosts: [], perHost: 9)
            #expect(third.map(\.inbox) == (2..<5).map { "https://a.example/u\($0)/inbox" })
            #expect(try store.claimDeliveries(dueBy: t0, lease: 60, limit: 64, skippingHosts: [], perHost: 9).isEmpty)
            #expect(Set((first + second + third).map(\.id)).count == 9)
        }
    }

    /// The rows looked at are the first `limit` due of the hosts not
    /// skipped: a run of one host's cuts the claim short, and skipping
    /// that host then reaches the rows behind it.
    @Test(arguments: Backend.available) func aRunOfOneHostCutsTheClaimShort(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            try fannedOut(store)
            let short = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 4, skippingHosts: [], perHost: 1)
            #expect(hosts(short) == ["a.example"])
            let past = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 4, skippingHosts: ["a.example"], perHost: 1)
            #expect(hosts(past) == ["b.example", "c.example"])
            #expect(try store.claimDeliveries(dueBy: t0 - 1, lease: 60, limit: 4, skippingHosts: [], perHost: 1).isEmpty,
                    "nothing due earlier")
        }
    }
}
