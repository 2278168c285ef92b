import BlogWire
import Synchronization
import BlogAuth
import BlogLimits

/// How each address's password hashes went lately, which decides where its
/// next register or login waits (`Standing`): addresses with a recent
/// success first, then new ones, then those whose latest hash failed; and
/// only the first may fill the hash lane (`HashLane`). A flood of guesses
/// from many addresses, each within its own budget, then slows the
/// guessers, not a real user's login.
///
/// Memory is bounded: past `capacity` addresses, the ones not heard from
/// for `memory` seconds are forgotten first, then the longest quiet. A
/// forgotten address is unknown again, which is what it would be after
/// `memory` anyway.
///
///     let standing = AddressStanding()
///     session.standing = standing.standing(of: key, at: now)
///     ... standing.record(outcome.reply, for: key, at: now)
final class AddressStanding: Sendable {
    private struct Record {
        var standing: Standing
        var updated: Moment
    }

    /// Seconds an outcome counts for its address.
    let memory: Double
    let capacity: Int
    private let records = Mutex<[AddressKey: Record]>([:])

    init(memory: Double = 600, capacity: Int = 100_000) {
        self.memory = memory
        self.capacity = max(1, capacity)
    }

    /// Addresses remembered (for tests).
    var count: Int { records.withLock { $0.count } }

    func standing(of key: AddressKey, at now: Moment) -> Standing {
        records.withLock { records in
            guard let record = records[key] else { return .unknown }
            guard now.seconds(since: record.updated) < memory else {
                records[key] = nil
                return .unknown
            }
            return record.standing
        }
    }

    /// What a hashing request's reply says of its address: a refused login
    /// is a failure, a login or register that went through a success;
    /// anything else (a taken name, a database error) says nothing.
    func record(_ reply: Reply, for key: AddressKey, at now: Moment) {
        let standing: Standing
        switch reply {
        case .loginRefused: standing = .doubtful
        case .loggedIn, .registered: standing = .proven
        default: return
        }
        records.withLock { records in
            if records[key] == nil && records.count >= capacity { forgetSome(&records, at: now) }
            records[key] = Record(standing: standing, updated: now)
        }
    }

    /// Makes room: stale records first, then the oldest half (amortized:
    /// the next `capacity / 2` new addresses cost nothing).
    private func forgetSome(_ records: inout [AddressKey: Record], at now: Moment) {
        records = records.filter { now.seconds(since: $0.value.updated) < memory }
        guard records.count >= capacity else { return }
        let oldest = records.sorted { $0.value.updated < $1.value.updated }.prefix(records.count - capacity / 2)
        for (key, _) in oldest { records[key] = nil }
    }
}
