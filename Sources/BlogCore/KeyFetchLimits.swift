/// The bounds of fetching signers' keys: how long a key is kept, how
/// many fetches at once, and how many a host and an address may cause.
public struct KeyFetchLimits: Sendable {
    /// Bytes of an actor document read; a longer one is refused.
    public var maxBytes: Int
    /// Seconds a fetched key is used before it is fetched again.
    public var cacheSeconds: Double
    /// Keys kept (least recently used out).
    public var cacheCapacity: Int
    /// Distinct key ids fetched at once; past it a new one is refused (`busy`).
    public var concurrency: Int
    /// Requests waiting at once for a fetch under way (of their key id).
    public var maxWaiters: Int
    /// A key is fetched again on a failed verify only if it is older than this.
    public var refetchAfter: Double
    /// Fetches to one host: a token bucket, per second and burst.
    public var perHostRate: Double
    public var perHostBurst: Double
    /// Fetches caused by one requesting address (IPv4, IPv6 /64).
    public var perAddressRate: Double
    public var perAddressBurst: Double

    public init(maxBytes: Int = 64 * 1024, cacheSeconds: Double = 3600, cacheCapacity: Int = 10_000,
                concurrency: Int = 16, maxWaiters: Int = 256, refetchAfter: Double = 60,
                perHostRate: Double = 0.5, perHostBurst: Double = 20,
                perAddressRate: Double = 1, perAddressBurst: Double = 30) {
        self.maxBytes = maxBytes
        self.cacheSeconds = cacheSeconds
        self.cacheCapacity = cacheCapacity
        self.concurrency = concurrency
        self.maxWaiters = maxWaiters
        self.refetchAfter = refetchAfter
        self.perHostRate = perHostRate
        self.perHostBurst = perHostBurst
        self.perAddressRate = perAddressRate
        self.perAddressBurst = perAddressBurst
    }
}
