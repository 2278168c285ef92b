import BlogSockets
import Synchronization

/// How a new connection is taken.
enum Admission: Sendable, Equatable {
    /// Served: counts against the limit until its socket is closed.
    case served
    /// Over the limit: gets `err:BUSY` and is closed.
    case rejected
}

/// The connection limit, exact whatever the load: a connection counts from
/// its accept until its socket is closed, and a reservation is one atomic
/// compare-and-exchange, so no two loops can both take the last place.
final class ConnectionLimits: Sendable {
    let maxConnections: Int
    private let served = Atomic<Int>(0)
    private let rejected = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)

    init(maxConnections: Int) {
        self.maxConnections = max(1, maxConnections)
    }

    /// Connections accepted since the start, whatever became of them.
    var acceptedCount: Int { accepted.load(ordering: .relaxed) }

    /// Served connections and rejected ones still closing.
    var openCount: Int { served.load(ordering: .relaxed) + rejected.load(ordering: .relaxed) }

    /// Takes a place for a new connection: `.served` while there is room,
    /// `.rejected` past the limit, `nil` (close without a word) once even
    /// rejections fill a second limit's worth, since they cost too.
    func admit() -> Admission? {
        accepted.add(1, ordering: .relaxed)
        if reserve(served, below: maxConnections) { return .served }
        if reserve(rejected, below: maxConnections) { return .rejected }
        return nil
    }

    /// Gives the place back when the connection's socket is closed.
    func release(_ admission: Admission) {
        switch admission {
        case .served: served.subtract(1, ordering: .relaxed)
        case .rejected: rejected.subtract(1, ordering: .relaxed)
        }
    }

    private func reserve(_ counter: borrowing Atomic<Int>, below limit: Int) -> Bool {
        var current = counter.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = counter.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }
}
