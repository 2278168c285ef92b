import BlogCore
import BlogWire
import Synchronization

/// Which addresses' password hashes failed lately: a register or login
/// from one of them waits behind those of addresses in good standing
/// (never failed, or succeeded since), and may hold only part of the hash
/// lane. A flood of failing guesses from many addresses, each within its
/// own budget, then slows the guessers, not a real user's login.
///
/// Memory is bounded: past `capacity` addresses, failures older than
/// `memory` are forgotten first, then the oldest. A forgotten address is
/// in good standing again, which is what it would be after `memory` anyway.
///
///     let standing = AddressStanding()
///     session.standing = standing.standing(of: key, at: now)
///     ... standing.record(outcome.reply, for: key, at: now)
final class AddressStanding: Sendable {
    /// Seconds a failure counts against its address.
    let memory: Double
    let capacity: Int
    private let failures = Mutex<[AddressKey: Moment]>([:])

    init(memory: Double = 600, capacity: Int = 100_000) {
        self.memory = memory
        self.capacity = max(1, capacity)
    }

    /// Addresses remembered (for tests).
    var count: Int { failures.withLock { $0.count } }

    func standing(of key: AddressKey, at now: Moment) -> Standing {
        failures.withLock { failures in
            guard let failed = failures[key] else { return .good }
            guard now.seconds(since: failed) < memory else {
                failures[key] = nil
                return .good
            }
            return .doubtful
        }
    }

    /// What a hashing request's reply says of its address: a refused login
    /// is a failure, a login or register that went through a success;
    /// anything else (a taken name, a database error) says nothing.
    func record(_ reply: Reply, for key: AddressKey, at now: Moment) {
        switch reply {
        case .loginRefused:
            failures.withLock { failures in
                if failures[key] == nil && failures.count >= capacity { forgetSome(&failures, at: now) }
                failures[key] = now
            }
        case .loggedIn, .registered:
            _ = failures.withLock { $0.removeValue(forKey: key) }
        default:
            break
        }
    }

    /// Makes room: stale failures first, then the oldest half (amortized:
    /// the next `capacity / 2` new addresses cost nothing).
    private func forgetSome(_ failures: inout [AddressKey: Moment], at now: Moment) {
        failures = failures.filter { now.seconds(since: $0.value) < memory }
        guard failures.count >= capacity else { return }
        let oldest = failures.sorted { $0.value < $1.value }.prefix(failures.count - capacity / 2)
        for (key, _) in oldest { failures[key] = nil }
    }
}
