import Synchronization

/// Bytes of request bodies being read, bounded in all and per address: a
/// body is held in memory until its request is answered, so without a
/// bound, connections trickling large uploads (32 an address, thousands
/// in all) would hold gigabytes. A request whose body does not fit is
/// refused (`503`) before a byte of it is read.
///
///     guard budget.reserve(length, for: peer) else { /* 503 */ }
///     defer { budget.release(length, for: peer) }
final class BodyBudget: Sendable {
    private struct State {
        var total = 0
        var byAddress: [String: Int] = [:]
    }

    let maxTotal: Int
    let maxPerAddress: Int
    private let state = Mutex(State())

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Takes `bytes` for `address`; false (and nothing taken) when either
    /// bound would be passed.
    func reserve(_ bytes: Int, for address: String) -> Bool {
        guard bytes > 0 else { return true }
        return state.withLock { state in
            let mine = state.byAddress[address, default: 0]
            guard state.total + bytes <= maxTotal, mine + bytes <= maxPerAddress else { return false }
            state.total += bytes
            state.byAddress[address] = mine + bytes
            return true
        }
    }

    func release(_ bytes: Int, for address: String) {
        guard bytes > 0 else { return }
        state.withLock { state in
            state.total -= bytes
            let left = state.byAddress[address, default: 0] - bytes
            state.byAddress[address] = left > 0 ? left : nil
        }
    }

    /// Bytes reserved now (for tests).
    var reserved: Int { state.withLock { $0.total } }
}
