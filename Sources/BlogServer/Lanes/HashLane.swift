import Synchronization

/// The lane of requests that hash a password (register, login), kept apart
/// from the cheap ones so that a queue of scrypt work never delays them,
/// and bounded by the work it holds: when the hashes admitted and not yet
/// done would take more than `maxWait` seconds on the hashing threads, a
/// new one is refused at once (`err:BUSY`) instead of waiting for minutes.
///
///     guard hashLane.reserve() else { return .busy }
///     hashLane.run { ...; }   // releases the reservation when it ends
final class HashLane: Sendable {
    /// Seconds of hashing the admitted work may hold.
    let maxWait: Double
    private let lane: Lane
    private let admitted = Atomic<Int>(0)
    /// What one hash costs now, and how many run at once.
    private let cost: @Sendable () -> (secondsPerHash: Double, parallel: Int)

    init(maxWait: Double, concurrency: Int, cost: @escaping @Sendable () -> (secondsPerHash: Double, parallel: Int)) {
        self.maxWait = maxWait
        self.cost = cost
        lane = Lane(name: "hashing", limit: max(1, concurrency))
    }

    /// Requests admitted and not done.
    var load: Int { admitted.load(ordering: .relaxed) }

    /// How many requests the bound admits at the current cost; at least
    /// one, so a costly setting never refuses everything. (Past the lane's
    /// places, admitted requests wait for a place in order; with the
    /// defaults the bound admits fewer than there are places.)
    var capacity: Int {
        let (seconds, parallel) = cost()
        guard seconds > 0 else { return .max }
        return max(1, Int(min(Double(Int.max / 2), maxWait * Double(max(1, parallel)) / seconds)))
    }

    /// Takes a place for one request; false when the lane is full. Every
    /// true is followed by `run` or `cancel`.
    func reserve() -> Bool {
        let limit = capacity
        var current = admitted.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = admitted.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back a place `reserve` took, unused.
    func cancel() {
        admitted.subtract(1, ordering: .relaxed)
    }

    /// Runs a reserved request; its place is free again when it ends.
    func run(_ job: @escaping @Sendable () -> Void) {
        lane.submit { [self] in
            job()
            admitted.subtract(1, ordering: .relaxed)
        }
    }
}
