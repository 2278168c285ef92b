import Metrics
import Synchronization

/// How a new connection is taken.
public enum Admission: Sendable, Equatable {
    /// Served: counts against the limits until its socket is closed.
    case served
    /// Over a limit: gets `err:BUSY` and is closed.
    case rejected
}

/// The connection limits, exact whatever the load: in all
/// (`maxConnections`) and per address (`maxPerAddress`, an IPv6 /64 being
/// one address). A connection counts from its accept until its socket is
/// closed, or until it is evicted.
///
/// A full table is no wall for a newcomer: an address holding at most half
/// its fair share (the limit in all divided among the addresses holding
/// places) may take the place of an idle connection of an address holding
/// more than that (`admit(from:evicting:)`), so a crowd of addresses
/// holding idle connections cannot lock everyone else out. An address
/// that lost a place that way still holds half its share, so taking it
/// back would put it over: the crowd cannot evict one another in a loop. A trusted proxy's connection takes no place of its own per
/// address: it takes its client's once the PROXY header names it
/// (`reserveAddress`). The total is one atomic compare-and-exchange, so no two loops
/// can both take the last place; the per-address counts sit under a lock
/// held for a dictionary update.
public final class ConnectionLimits: Sendable {
    /// Changed at run time by a reload (`set`); a lower limit takes no
    /// connection away, it only refuses new ones until the count is under it.
    public var maxConnections: Int { maxConnectionsNow.load(ordering: .relaxed) }
    public var maxPerAddress: Int { maxPerAddressNow.load(ordering: .relaxed) }
    private let maxConnectionsNow: Atomic<Int>
    private let maxPerAddressNow: Atomic<Int>
    /// Addresses without a limit of their own.
    public let exempt: Set<AddressKey>
    private let metrics: AdmissionMetrics
    private let served = Atomic<Int>(0)
    private let rejected = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)
    private let perAddress = Mutex<[AddressKey: Int]>([:])

    public init(maxConnections: Int, maxPerAddress: Int, exempt: Set<AddressKey> = [],
                metrics: AdmissionMetrics = AdmissionMetrics()) {
        self.metrics = metrics
        maxConnectionsNow = Atomic(max(1, maxConnections))
        maxPerAddressNow = Atomic(max(1, maxPerAddress))
        self.exempt = exempt
    }

    /// New limits (a reload).
    public func set(maxConnections: Int, maxPerAddress: Int) {
        maxConnectionsNow.store(max(1, maxConnections), ordering: .relaxed)
        maxPerAddressNow.store(max(1, maxPerAddress), ordering: .relaxed)
    }

    /// Connections accepted since the start, whatever became of them.
    public var acceptedCount: Int { accepted.load(ordering: .relaxed) }

    /// Served connections and rejected ones still closing.
    public var openCount: Int { served.load(ordering: .relaxed) + rejected.load(ordering: .relaxed) }

    /// Served connections from `key` right now.
    public func openCount(from key: AddressKey) -> Int {
        perAddress.withLock { $0[key] ?? 0 }
    }

    /// Takes a place for a new connection from `key` (nil: no per-address
    /// place, for a trusted proxy): `.served` while both limits have room,
    /// `.rejected` past either, `nil` (close without a word) once even
    /// rejections fill a second limit's worth, since they cost too.
    ///
    /// When the table is full and `key` holds at most half its fair share,
    /// `evict` is asked to hand over the place of an idle connection
    /// (`evictable` tells whose may go; `handOver(from:)` takes it from
    /// its address) before giving up. The place passes straight to the
    /// newcomer: released and taken again, another loop's accept could
    /// take it in between, and a crowd connecting fast always would.
    public func admit(from key: AddressKey?, evicting evict: () -> Bool = { false }) -> Admission? {
        accepted.add(1, ordering: .relaxed)
        metrics.accepted?.increment()
        if key.map(reserveAddress) ?? true {
            if served.increment(below: maxConnections) { return .served }
            if isUnderShare(key), evict() { return .served }
            key.map(releaseAddress)
            metrics.refusedOverLimit?.increment()
        } else {
            metrics.refusedPerAddress?.increment()
        }
        if rejected.increment(below: maxConnections) { return .rejected }
        return nil
    }

    /// Gives the place back when the connection's socket is closed; `key`
    /// is the address whose place it holds, if any.
    public func release(_ admission: Admission, from key: AddressKey?) {
        switch admission {
        case .served:
            served.subtract(1, ordering: .relaxed)
            key.map(releaseAddress)
        case .rejected:
            rejected.subtract(1, ordering: .relaxed)
        }
    }

    /// An evicted connection's place, handed to the newcomer: it counts in
    /// all still, no longer for `key`.
    public func handOver(from key: AddressKey?) {
        key.map(releaseAddress)
    }

    /// Takes a place for a connection that is closing anyway (an evicted
    /// one, to say why); false when even those are at their limit.
    public func reserveRejected() -> Bool {
        rejected.increment(below: maxConnections)
    }

    /// The places one address may hold when the table is full: an equal
    /// share for every address holding one.
    public var fairShare: Int {
        let addresses = perAddress.withLock { $0.count }
        return max(1, maxConnections / max(1, addresses))
    }

    /// What an address may hold and still take an idle connection's place;
    /// one that holds more may lose one.
    private var halfShare: Int { max(1, fairShare / 2) }

    /// Whether a connection from `key` (just counted) leaves its address
    /// within half its fair share, so it may take an idle connection's
    /// place. An exempt address or a proxy's client yet unnamed counts
    /// nothing, so it may.
    private func isUnderShare(_ key: AddressKey?) -> Bool {
        guard let key, !exempt.contains(key) else { return true }
        let half = halfShare
        return perAddress.withLock { ($0[key] ?? 0) <= half }
    }

    /// Whether an idle connection of `key` may be evicted for a newcomer:
    /// its address holds more than half its fair share. Exempt addresses
    /// and unnamed ones hold no share to keep.
    public func evictable(_ key: AddressKey?) -> Bool {
        guard let key, !exempt.contains(key) else { return true }
        let half = halfShare
        return perAddress.withLock { ($0[key] ?? 0) > half }
    }

    /// Takes a place for `key` alone: false when it has none left.
    public func reserveAddress(_ key: AddressKey) -> Bool {
        guard !exempt.contains(key) else { return true }
        return perAddress.withLock { counts in
            let count = counts[key] ?? 0
            guard count < maxPerAddress else { return false }
            counts[key] = count + 1
            return true
        }
    }

    public func releaseAddress(_ key: AddressKey) {
        guard !exempt.contains(key) else { return }
        perAddress.withLock { counts in
            let count = (counts[key] ?? 1) - 1
            counts[key] = count > 0 ? count : nil
        }
    }
}

/// Where a connection table counts what it admits and refuses (each
/// door names its own metrics).
public struct AdmissionMetrics: Sendable {
    public var accepted: Counter?
    /// The table was full (and no idle connection could give its place).
    public var refusedOverLimit: Counter?
    /// The address (or IPv6 /64) held its share already.
    public var refusedPerAddress: Counter?

    public init(accepted: Counter? = nil, refusedOverLimit: Counter? = nil, refusedPerAddress: Counter? = nil) {
        self.accepted = accepted
        self.refusedOverLimit = refusedOverLimit
        self.refusedPerAddress = refusedPerAddress
    }
}
