import Synchronization

/// Bytes of request bodies being read, bounded in all and per address
/// (`AddressKey`: an IPv6 /64 is one address): a
/// body is held in memory until its request is answered, so without a
/// bound, connections trickling large uploads (32 an address, thousands
/// in all) would hold gigabytes. A request whose body does not fit is
/// refused (`503`) before a byte of it is read.
///
///     guard budget.reserve(length, for: peer) else { /* 503 */ }
///     defer { budget.release(length, for: peer) }
public final class BodyBudget: Sendable {
    private struct State {
        var total = 0
        var byAddress: [AddressKey: Int] = [:]
    }

    public let maxTotal: Int
    public let maxPerAddress: Int
    private let state = Mutex(State())

    public init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Takes `bytes` for `address`; false (and nothing taken) when either
    /// bound would be passed.
    public func reserve(_ bytes: Int, for address: String) -> Bool {
        let address = AddressKey.of(address)
        guard bytes > 0 else { return true }
        return state.withLock { state in
            let mine = state.byAddress[address, default: 0]
            guard state.total + bytes <= maxTotal, mine + bytes <= maxPerAddress else { return false }
            state.total += bytes
            state.byAddress[address] = mine + bytes
            return true
        }
    }

    public func release(_ bytes: Int, for address: String) {
        let address = AddressKey.of(address)
        guard bytes > 0 else { return }
        state.withLock { state in
            state.total -= bytes
            let left = state.byAddress[address, default: 0] - bytes
            state.byAddress[address] = left > 0 ? left : nil
        }
    }

    /// Bytes reserved now (for tests).
    public var reserved: Int { state.withLock { $0.total } }
}
