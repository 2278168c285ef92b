import BlogWire
import BlogModel
import BlogAuth
import BlogCore
/// Everything `blogd serve` can be told, with the defaults of
/// `config/blogd.json`.
public struct BlogConfig: Sendable, Equatable {
    /// Address to listen on; `*` means every address, IPv4 and IPv6.
    public var host = "*"
    public var port = 51515
    /// The SQLite file (its folder is created if missing), or a
    /// `postgres://USER@HOST:PORT/DATABASE` URL (BlogPostgres).
    public var database = "data/blog.sqlite"
    /// Seconds any database call may take; past it the request fails
    /// (`err:DB`, `post:ERR`) and nothing of it is stored.
    public var storageDeadline = 3.0
    /// Also serve the public folder over HTTP on this port (off when nil;
    /// 0 picks any free port). Same `host` as the blog protocol.
    public var httpPort: Int?
    /// Bytes of an HTTP request line or header field, and of all fields.
    public var httpMaxHeaderBytes = 16 * 1024
    /// Seconds an HTTP connection may take for each step: a request in, a
    /// response out, the next request to arrive.
    public var httpTimeout = 10.0
    /// HTTP connections open at once; past it a newcomer evicts the
    /// connection idle longest.
    public var httpMaxConnections = 4096
    /// HTTP connections from one address (an IPv6 /64) at once.
    public var httpMaxConnectionsPerAddress = 32
    /// A log line for each HTTP request (`blogd.http.access`, info level).
    public var httpAccessLog = false
    /// Also serve the public folder over HTTPS on this port (off when nil;
    /// needs `tlsCertificate` and `tlsKey`).
    public var httpsPort: Int?
    /// PEM file of the certificate chain (the server's first), read again on SIGHUP.
    public var tlsCertificate: String?
    /// PEM file of the certificate's private key, read again on SIGHUP.
    public var tlsKey: String?
    /// Plain HTTP answers with a redirect to HTTPS (but `/healthz`).
    public var httpRedirectHTTPS = false
    /// The page server also serves the web client (`/app/`) and Micropub
    /// (`/micropub`); off, it serves the public folder only.
    public var webClient = true
    /// Send Webmentions to the pages posts link to (queued with each
    /// post, edit and deletion, sent in the background).
    public var webmentionSend = true
    /// Serve the metrics (`/metrics`, Prometheus text) on this port (off
    /// when nil; 0 picks any free port), on a listener of their own.
    public var metricsPort: Int?
    /// Address the metrics listener binds: loopback unless told, since
    /// the figures are for the operator.
    public var metricsHost = "127.0.0.1"
    /// The web folder where `NAME.html` pages go, beside `style.css`.
    public var publicFolder = "public"
    /// Answer many messages per connection instead of one.
    public var keepAlive = false
    public var maxMessageBytes = Frame.defaultMaxMessageBytes
    /// Seconds to wait for a complete message (and, with keep-alive, the
    /// idle time between messages).
    public var readTimeout = 10.0
    /// Blog-port connections at once; 0 sizes it from the descriptor limit.
    public var maxConnections = 0
    /// When the table is full, a newcomer may take the place of the
    /// connection that has waited longest for a message...
    public var evictIdle = true
    /// ...once it has waited this many seconds.
    public var evictIdleAfter = 0.0
    /// Connections from one address (an IPv6 /64) at once.
    public var maxConnectionsPerAddress = 32
    /// Password hashes one address may start per second on average...
    public var hashesPerAddressPerSecond = 2.0
    /// ...and at once after a quiet spell.
    public var hashBurstPerAddress = 10
    /// Bytes of posts one address may send per second on average...
    public var postBytesPerAddressPerSecond = 256 * 1024
    /// ...and at once after a quiet spell.
    public var postBurstBytesPerAddress = 1024 * 1024
    /// Seconds of password hashing that may wait; past it, err:BUSY.
    public var maxHashWait = 2.0
    /// Seconds an err:BUSY is held back, so a refused client cannot turn
    /// into a flood of connections.
    public var busyDelay = 1.0
    /// Addresses the per-address budgets leave alone: by default the
    /// loopback ones, where a local script or proxy speaks for many people.
    public var budgetExempt = ["127.0.0.1", "::1"]
    /// Behind a load balancer: expect a PROXY protocol header (v1 or v2)
    /// before the first message from the `trustedProxies`, and take the
    /// client it names as the peer.
    public var proxyProtocol = false
    /// Addresses or networks (`10.0.0.0/8`) whose PROXY headers are
    /// believed; a header from anyone else is refused.
    public var trustedProxies: [String] = []
    /// Epoll threads serving the blog port; 0 is one per core, which
    /// served best when measured (README, "The event loop").
    public var eventLoops = 0
    /// Seconds a register or login lets the same address post.
    public var loginLease = 3600.0
    /// Let anyone post as anyone, as the original did (insecure).
    public var openPosting = false
    /// `open`: anyone may `register`; `closed`: `reg:NA`, and the admin
    /// adds users with `blogd adduser`.
    public var registrationOpen = true
    /// Check every blog's pages against the database at start (and rewrite
    /// those a crash left stale); off, the start costs nothing per user.
    public var checkPagesAtStart = true
    /// Where the public folder is served, for the feeds' absolute links
    /// (`https://blog.example.org/`); nil: made from `host` and `http_port`.
    public var baseURL: String?
    public var scrypt = ScryptParameters.standard
    /// Posts per archive page; the main page holds up to twice as many.
    public var pageSize = 50
    /// Escaped text (bytes) one page group holds at most; the main page
    /// shows at most that much but for one oversized post.
    public var pageBytes = PageLayout.defaultPageBytes
    /// Days a post its author deleted stays in the trash, restorable,
    /// before it is purged.
    public var trashDays = BlogService.Settings.defaultTrashDays
    /// Failed logins of one user from one address before a lockout.
    public var loginFailuresAllowed = 5
    /// Seconds over which those failures count.
    public var loginFailureWindow = 300.0
    /// Seconds a locked-out user/address pair is refused.
    public var loginLockout = 300.0
    /// swift-log level: trace, debug, info, notice, warning, error, critical.
    public var logLevel = "info"
    /// Outgoing fetches (Webmention sources and sends, photos by URL): may
    /// they reach loopback and private addresses (tests, private networks
    /// only), how long each may take, how many bytes they read, how many
    /// at once.
    public var outgoingAllowPrivate = false
    public var outgoingTimeout = 10.0
    public var outgoingMaxBytes = 1 << 20
    public var outgoingConcurrency = 8
    /// Webmentions received per address: a second's refill and a burst.
    public var webmentionRate = 1.0
    public var webmentionBurst = 20.0
    /// ActivityPub inbox POSTs per address (a second, and at once).
    public var inboxRate = 5.0
    public var inboxBurst = 50.0
    /// Tag pages and their feeds, and searches, per address (a second,
    /// and at once).
    public var tagPagesRate = 5.0
    public var tagPagesBurst = 20.0
    public var searchRate = 2.0
    public var searchBurst = 10.0
    /// IndieAuth per address: authorization attempts, token requests (a
    /// second, and at once), and changes of blog settings.
    public var indieauthAuthorizationRate = 0.5
    public var indieauthAuthorizationBurst = 30.0
    public var indieauthTokenRate = 0.5
    public var indieauthTokenBurst = 30.0
    public var blogSettingsRate = 0.1
    public var blogSettingsBurst = 3.0
    /// The Webmention sender's retries: the first wait (seconds, doubled
    /// each time), the longest, and the tries before it gives up.
    public var webmentionSendFirstRetry = 60.0
    public var webmentionSendMaxRetry = 6 * 3600.0
    public var webmentionSendAttempts = 8
    /// The Webmention verifier's: the first wait (four times longer each
    /// time) and the tries before the Webmention is removed.
    public var webmentionVerifyFirstRetry = 60.0
    public var webmentionVerifyAttempts = 5

    public init() {}
}

extension BlogConfig {
    /// The service settings this configuration asks for.
    public var serviceSettings: BlogService.Settings {
        BlogService.Settings(
            openPosting: openPosting, scrypt: scrypt, loginLease: loginLease, pageSize: pageSize, pageBytes: pageBytes,
            loginThrottle: .init(allowedFailures: loginFailuresAllowed, window: loginFailureWindow, lockout: loginLockout),
            storageDeadline: storageDeadline, registrationOpen: registrationOpen, baseURL: effectiveBaseURL,
            trashDays: trashDays)
    }

    /// `baseURL`, or `http://HOST[:HTTP_PORT]/` (a wildcard host is
    /// `localhost`, so set `base_url` for a server others read).
    public var effectiveBaseURL: String {
        if let baseURL { return baseURL.hasSuffix("/") ? baseURL : baseURL + "/" }
        let wildcard = ["*", "0.0.0.0", "::", ""].contains(host)
        var name = wildcard ? "localhost" : host
        if name.contains(":") { name = "[\(name)]" }
        if let port = httpsPort, port != 0, httpRedirectHTTPS || httpPort == nil {
            return port == 443 ? "https://\(name)/" : "https://\(name):\(port)/"
        }
        guard let port = httpPort, port != 0, port != 80 else { return "http://\(name)/" }
        return "http://\(name):\(port)/"
    }
}
