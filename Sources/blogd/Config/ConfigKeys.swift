
/// Every configuration key blogd reads: its name in the JSON file, its
/// environment variable, its default and what it does. `blogd serve
/// --help` prints the table; a key in the file that is not here is an
/// error that names the nearest one.
///
///     ConfigKeys.nearest(to: "post_byte_per_second")  // "post_bytes_per_address_per_second"
public enum ConfigKeys {
    public struct Key: Sendable {
        /// As in the JSON file; `scrypt.log_n` is `log_n` inside `scrypt`.
        public let name: String
        public let summary: String
        let defaultValue: @Sendable (BlogConfig) -> String

        /// `BLOGD_` and the name in capitals, dots as underscores.
        public var environmentVariable: String {
            "BLOGD_" + name.uppercased().replacingOccurrences(of: ".", with: "_")
        }

        /// The value blogd uses when nothing sets the key.
        public var defaultText: String { defaultValue(BlogConfig()) }
    }

    public static let all: [Key] = [
        Key(name: "host", summary: "address to listen on; * for every address") { $0.host },
        Key(name: "port", summary: "TCP port of the blog protocol; 0 picks a free one") { "\($0.port)" },
        Key(name: "db", summary: "SQLite file, or postgres://USER@HOST:PORT/DATABASE") { $0.database },
        Key(name: "storage_deadline", summary: "seconds a request waits for the database") { "\($0.storageDeadline)" },
        Key(name: "public", summary: "folder the pages are written to") { $0.publicFolder },
        Key(name: "http_port", summary: "serve the public folder over HTTP on this port (off when unset)") {
            $0.httpPort.map(String.init) ?? "off"
        },
        Key(name: "http_max_header_bytes", summary: "largest HTTP request head") { "\($0.httpMaxHeaderBytes)" },
        Key(name: "http_timeout", summary: "seconds an HTTP request may take to arrive") { "\($0.httpTimeout)" },
        Key(name: "http_max_connections", summary: "HTTP connections at once") { "\($0.httpMaxConnections)" },
        Key(name: "http_max_connections_per_address", summary: "HTTP connections at once from one address") {
            "\($0.httpMaxConnectionsPerAddress)"
        },
        Key(name: "http_access_log", summary: "one log line per HTTP request") { "\($0.httpAccessLog)" },
        Key(name: "https_port", summary: "serve the public folder over HTTPS on this port (off when unset)") {
            $0.httpsPort.map(String.init) ?? "off"
        },
        Key(name: "tls_certificate", summary: "PEM certificate chain for HTTPS (read again on SIGHUP)") {
            $0.tlsCertificate ?? "none"
        },
        Key(name: "tls_key", summary: "PEM private key for HTTPS (read again on SIGHUP)") { $0.tlsKey ?? "none" },
        Key(name: "http_redirect_https", summary: "plain HTTP redirects to HTTPS (but /healthz)") {
            "\($0.httpRedirectHTTPS)"
        },
        Key(name: "web_client", summary: "serve the web client (/app/) and Micropub (/micropub) on the page server") {
            "\($0.webClient)"
        },
        Key(name: "webmention_send", summary: "send Webmentions to the pages posts link to") { "\($0.webmentionSend)" },
        Key(name: "metrics_port", summary: "serve Prometheus /metrics on this port (off when unset)") {
            $0.metricsPort.map(String.init) ?? "off"
        },
        Key(name: "metrics_host", summary: "address the metrics listener binds") { $0.metricsHost },
        Key(name: "base_url", summary: "where the public folder is served, for feeds' absolute links") {
            $0.effectiveBaseURL
        },
        Key(name: "keep_alive", summary: "keep blog connections open after a reply") { "\($0.keepAlive)" },
        Key(name: "max_message_bytes", summary: "largest blog message") { "\($0.maxMessageBytes)" },
        Key(name: "read_timeout", summary: "seconds a message may take to arrive") { "\($0.readTimeout)" },
        Key(name: "max_connections", summary: "blog connections at once; 0 from the descriptor limit") {
            "\($0.maxConnections)"
        },
        Key(name: "evict_idle", summary: "close the longest-idle connection when full") { "\($0.evictIdle)" },
        Key(name: "evict_idle_after", summary: "seconds idle before a connection may be evicted; 0 any") {
            "\($0.evictIdleAfter)"
        },
        Key(name: "event_loops", summary: "event loop threads; 0 one per core") { "\($0.eventLoops)" },
        Key(name: "max_connections_per_address", summary: "blog connections at once from one address") {
            "\($0.maxConnectionsPerAddress)"
        },
        Key(name: "hashes_per_address_per_second", summary: "password hashes an address may cost") {
            "\($0.hashesPerAddressPerSecond)"
        },
        Key(name: "hash_burst_per_address", summary: "hashes an address may spend at once") { "\($0.hashBurstPerAddress)" },
        Key(name: "max_hash_wait", summary: "seconds a login may wait for a hashing thread") { "\($0.maxHashWait)" },
        Key(name: "post_bytes_per_address_per_second", summary: "post bytes an address may send") {
            "\($0.postBytesPerAddressPerSecond)"
        },
        Key(name: "post_burst_bytes_per_address", summary: "post bytes an address may send at once") {
            "\($0.postBurstBytesPerAddress)"
        },
        Key(name: "budget_exempt", summary: "addresses without budgets (comma-separated in env)") {
            $0.budgetExempt.joined(separator: ",")
        },
        Key(name: "busy_delay", summary: "seconds a refusal (err:BUSY, 429) is held before it is sent, on every door") { "\($0.busyDelay)" },
        Key(name: "proxy_protocol", summary: "expect a PROXY protocol header from trusted proxies") {
            "\($0.proxyProtocol)"
        },
        Key(name: "trusted_proxies", summary: "addresses or networks allowed to send PROXY headers") {
            $0.trustedProxies.isEmpty ? "none" : $0.trustedProxies.joined(separator: ",")
        },
        Key(name: "login_lease", summary: "seconds a login lets its address post") { "\($0.loginLease)" },
        Key(name: "open_posting", summary: "anyone may post as anyone (the 2009 behaviour)") { "\($0.openPosting)" },
        Key(name: "registration", summary: "open, or closed (users made with blogd adduser)") {
            $0.registrationOpen ? "open" : "closed"
        },
        Key(name: "check_pages_at_start", summary: "compare every page with the database at start") {
            "\($0.checkPagesAtStart)"
        },
        Key(name: "scrypt.log_n", summary: "scrypt cost: log2 of N") { "\($0.scrypt.logN)" },
        Key(name: "scrypt.r", summary: "scrypt block size") { "\($0.scrypt.r)" },
        Key(name: "scrypt.p", summary: "scrypt parallelism") { "\($0.scrypt.p)" },
        Key(name: "page_size", summary: "posts on a page at most") { "\($0.pageSize)" },
        Key(name: "page_bytes", summary: "bytes of posts on a page at most") { "\($0.pageBytes)" },
        Key(name: "trash_days", summary: "days a deleted post can be restored before it is purged") { "\($0.trashDays)" },
        Key(name: "login_failures_allowed", summary: "failed logins before a lockout") { "\($0.loginFailuresAllowed)" },
        Key(name: "login_failure_window", summary: "seconds failures are counted over") { "\($0.loginFailureWindow)" },
        Key(name: "login_lockout", summary: "seconds a lockout lasts") { "\($0.loginLockout)" },
        Key(name: "log_level", summary: "trace, debug, info, notice, warning, error or critical") { $0.logLevel },
        Key(name: "outgoing_allow_private", summary: "outgoing fetches may reach loopback and private addresses") {
            "\($0.outgoingAllowPrivate)"
        },
        Key(name: "outgoing_timeout", summary: "seconds one outgoing fetch may take") { "\($0.outgoingTimeout)" },
        Key(name: "outgoing_max_bytes", summary: "bytes of an outgoing fetch's answer read at most") { "\($0.outgoingMaxBytes)" },
        Key(name: "outgoing_concurrency", summary: "outgoing fetches at once") { "\($0.outgoingConcurrency)" },
        Key(name: "webmention_rate", summary: "Webmentions an address may send a second") { "\($0.webmentionRate)" },
        Key(name: "webmention_burst", summary: "Webmentions an address may send at once") { "\($0.webmentionBurst)" },
        Key(name: "inbox_rate", summary: "ActivityPub inbox POSTs an address may send a second") { "\($0.inboxRate)" },
        Key(name: "inbox_burst", summary: "ActivityPub inbox POSTs an address may send at once") { "\($0.inboxBurst)" },
    ] + readingAndRetry

    /// The names of `all`.
    public static let names: Set<String> = Set(all.map(\.name))

    /// The known key closest to `name` (fewest edits), if any is close
    /// enough to be what was meant.
    public static func nearest(to name: String) -> String? {
        let scored = all.map { (key: $0.name, distance: editDistance(name.lowercased(), $0.name)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        return best.distance <= max(3, best.key.count / 3) ? best.key : nil
    }

    /// The table `--help` prints: per key its default, what it does and
    /// its environment variable, each on a short line (the help text is
    /// wrapped at 80 columns).
    public static var helpTable: String {
        all.map { key in
            "  \(key.name) = \(key.defaultText)\n      \(key.summary)\n      env \(key.environmentVariable)"
        }.joined(separator: "\n")
    }

    /// Levenshtein distance over UTF-8 bytes (keys are ASCII).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty else { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}
