import Synchronization
import BlogAuth
import BlogCore
import BlogLimits

/// The lane of requests that hash a password (register, login), kept apart
/// from the cheap ones so that a queue of scrypt work never delays them,
/// and bounded by the work it holds: when the hashes admitted and not yet
/// done would take more than `maxWait` seconds on the hashing threads, a
/// new one is refused at once (`err:BUSY`) instead of waiting for minutes.
///
/// Addresses without a recent success (`Standing.unknown` and `.doubtful`)
/// may hold at most half of the bound between them (one place when the
/// bound is one), so the other half is always there for the proven ones,
/// whatever a crowd of fresh addresses or guessers sends (a proven request
/// may exceed a bound of one by one); and they wait for a thread in a lane
/// of their own, so a proven request never queues behind them for one.
///
/// An admitted request runs in three parts, and no thread waits parked for
/// another: what comes before the hash on a lane thread, the hash on the
/// hashing threads (`WorkerThreads` at nice 10, taken by standing, then by
/// address in turn), and what follows it back on a lane thread
/// (`PasswordStep`).
///
///     guard hashLane.reserve(.proven) else { return .busy }
///     hashLane.run(.proven, session: session, step: { service.passwordStep(message: body, session: $0) }) {
///         outcome, session in reply(outcome)   // the place is free again after this
///     }
final class HashLane: Sendable {
    /// Seconds of hashing the admitted work may hold.
    let maxWait: Double
    private let lane: Lane
    private let unprovenLane: Lane
    /// Where the hashes run.
    let threads: WorkerThreads
    private let admitted = Atomic<Int>(0)
    /// Of `admitted`, those of addresses without a recent success.
    private let unproven = Atomic<Int>(0)
    /// What one hash costs now, and how many run at once.
    private let cost: @Sendable () -> (secondsPerHash: Double, parallel: Int)

    init(maxWait: Double, concurrency: Int, threads: WorkerThreads = HashingThreads.shared,
         cost: @escaping @Sendable () -> (secondsPerHash: Double, parallel: Int)) {
        self.maxWait = maxWait
        self.threads = threads
        self.cost = cost
        lane = Lane(name: "hashing", limit: max(1, concurrency))
        unprovenLane = Lane(name: "hashing.unproven", limit: max(1, concurrency))
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

    /// Requests of addresses without a recent success admitted and not done.
    var unprovenLoad: Int { unproven.load(ordering: .relaxed) }

    /// Takes a place for one request of an address in `standing`; false
    /// when the lane is full for it. Every true is followed by `run` or `cancel`.
    func reserve(_ standing: Standing = .proven) -> Bool {
        guard take(standing) else { return false }
        LaneMetrics.shared.hashDepth.increment()
        return true
    }

    private func take(_ standing: Standing) -> Bool {
        let limit = capacity
        // A proven request finds a place whenever the unproven ones hold
        // no more than their share. With a bound of one place (a hash
        // made slow by a starved CPU) that share is the one place, so a
        // proven request may then be the second: its wait doubles, where
        // otherwise a crowd of fresh addresses would keep it out.
        guard standing != .proven else {
            return admitted.increment(below: max(limit, unproven.load(ordering: .relaxed) + 1))
        }
        guard unproven.increment(below: max(1, limit / 2)) else { return false }
        guard admitted.increment(below: limit) else {
            unproven.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Gives back a place `reserve` took, unused.
    func cancel(_ standing: Standing = .proven) {
        release(standing)
    }

    /// Runs a reserved request: `step` (what comes before the hash) on a
    /// lane thread; the hash it asks for, if any, on the hashing threads;
    /// then what follows the hash back on a lane thread. `complete` gets
    /// the outcome and the session as the request left it; the place is
    /// free again once it returns.
    func run(_ standing: Standing = .proven, session: Session,
             step: @escaping @Sendable (Session) -> PasswordStep,
             complete: @escaping @Sendable (Outcome, Session) -> Void) {
        let lane = standing == .proven ? lane : unprovenLane
        lane.submit { [self] in
            switch step(session) {
            case .answered(let outcome):
                complete(outcome, session)
                release(standing)
            case .hash(let work):
                threads.submit(rank: work.standing.rawValue, owner: work.owner) { [self] in
                    work.hash()
                    // Storage work at normal priority, never at nice 10.
                    lane.submit { [self] in
                        var session = session
                        let outcome = work.finish(&session)
                        complete(outcome, session)
                        release(standing)
                    }
                }
            }
        }
    }

    /// Places of the lanes running a part of a request now (not those
    /// whose request waits for its hash).
    var busyPlaces: Int { lane.load + unprovenLane.load }

    private func release(_ standing: Standing) {
        LaneMetrics.shared.hashDepth.decrement()
        admitted.subtract(1, ordering: .relaxed)
        if standing != .proven { unproven.subtract(1, ordering: .relaxed) }
    }
}
