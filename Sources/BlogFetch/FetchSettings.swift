/// The bounds every outgoing fetch keeps: how much, how long, how many at
/// once, where.
public struct FetchSettings: Sendable {
    /// The most bytes of a response body read; past it the fetch fails
    /// with `FetchError.tooLarge` and the connection is dropped.
    public var maxBytes: Int
    /// The whole fetch, connection, redirects and body included.
    public var timeLimit: Duration
    /// Fetches under way at once, over every host.
    public var concurrency: Int
    /// Fetches under way at once to one host name.
    public var perHostConcurrency: Int
    /// Redirects followed, each one checked again like the first URL.
    public var maxRedirects: Int
    /// Loopback, private, link-local and the other special ranges become
    /// reachable: for tests on loopback and for private deployments only.
    public var allowPrivateAddresses: Bool
    /// Addresses reachable even though not public, exactly as `inet_ntop`
    /// writes them ("10.0.0.5", "::1"): one internal host, not a range.
    public var allowedAddresses: Set<String>
    /// Sent as `User-Agent`, so that a site can tell who fetched.
    public var userAgent: String

    public init(
        maxBytes: Int = 1 << 20,
        timeLimit: Duration = .seconds(10),
        concurrency: Int = 8,
        perHostConcurrency: Int = 2,
        maxRedirects: Int = 3,
        allowPrivateAddresses: Bool = false,
        allowedAddresses: Set<String> = [],
        userAgent: String = "blogd"
    ) {
        self.maxBytes = maxBytes
        self.timeLimit = timeLimit
        self.concurrency = concurrency
        self.perHostConcurrency = perHostConcurrency
        self.maxRedirects = maxRedirects
        self.allowPrivateAddresses = allowPrivateAddresses
        self.allowedAddresses = allowedAddresses
        self.userAgent = userAgent
    }
}
