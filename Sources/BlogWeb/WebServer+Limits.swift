import BlogLimits
extension WebServer {
    /// What one client may take of the web server: the defences against
    /// huge headers, slow or silent clients and connection floods.
    ///
    /// The defaults suit pages of a few hundred KB read by browsers and
    /// phones. What a client that breaks them gets:
    /// - a request line or header over `maxHeaderBytes`: `431` and the
    ///   connection closed (other malformed requests: `400` and closed);
    /// - a connection that completes no step within `timeout`: closed. A
    ///   step is receiving one whole request (head and body), sending one
    ///   whole response, or, on a kept-alive connection, the next request
    ///   arriving; so a silent client, one that trickles its head or body,
    ///   and one that does not read its response are all cut off;
    /// - more than `maxConnectionsPerAddress` from one address (an IPv6
    ///   /64): the extra one is closed at once;
    /// - more than `maxConnections` at once: a newcomer whose address holds
    ///   at most half its fair share takes the place of the connection idle
    ///   longest among addresses holding more than half theirs (closed);
    ///   otherwise the newcomer is closed. It is the blog port's rule
    ///   (`ConnectionLimits`).
    ///
    ///     var limits = WebServer.Limits()
    ///     limits.timeout = .seconds(5)
    ///     limits.maxConnections = 64
    ///     let web = try await WebServer(folder: folder, host: "*", port: 8080,
    ///                                   logger: logger, limits: limits)
    public struct Limits: Sendable, Equatable {
        /// Bytes allowed for the request line or any one header field, and
        /// for all header fields together. Default 16 KiB.
        public var maxHeaderBytes: Int
        /// Time allowed for each step of a connection (see above).
        /// Default 10 seconds.
        public var timeout: Duration
        /// Connections served at once. Default 4096: an idle one costs a
        /// descriptor and a few kilobytes.
        public var maxConnections: Int
        /// Connections from one address at once. Default 32.
        public var maxConnectionsPerAddress: Int
        /// Bytes of pages (plain and gzipped) kept in memory. Default 64 MiB.
        public var cacheBytes: Int
        /// Threads that run the web client's and Micropub's requests, in
        /// each of two pools (logins, the rest). Default 4: they mostly
        /// wait (for a password hash, a commit).
        public var applicationThreads: Int
        /// Application requests admitted at once, running or waiting for
        /// a thread; past it, `503` at once. Default 64.
        public var maxApplicationRequests: Int
        /// Bytes of application request bodies held at once, in all and
        /// from one address; past
        /// either, a request is refused `503` before its body is read.
        /// A body takes its room as its bytes arrive, and must arrive
        /// within `timeout`. Defaults 128 MiB and 16 MiB (one of the
        /// largest uploads from one address, with room to spare).
        public var maxBodyBytes: Int
        public var maxBodyBytesPerAddress: Int
        /// How long an application's refusals for a client over its budget
        /// are held before they are sent, as the blog port holds
        /// `err:BUSY`: one given before the body is read (an upload over
        /// its address's budget, then the connection closes), and any
        /// `429` it answers (a login flood). Default 1 second
        /// (`RefusalHold`, the same for every door).
        public var refusalHold = RefusalHold.standard

        public init(maxHeaderBytes: Int = 16 * 1024, timeout: Duration = .seconds(10), maxConnections: Int = 4096,
                    maxConnectionsPerAddress: Int = 32, cacheBytes: Int = 64 << 20, applicationThreads: Int = 4,
                    maxApplicationRequests: Int = 64, maxBodyBytes: Int = 128 << 20, maxBodyBytesPerAddress: Int = 16 << 20) {
            self.maxBodyBytes = maxBodyBytes
            self.maxBodyBytesPerAddress = maxBodyBytesPerAddress
            self.applicationThreads = applicationThreads
            self.maxApplicationRequests = maxApplicationRequests
            self.maxHeaderBytes = maxHeaderBytes
            self.timeout = timeout
            self.maxConnections = maxConnections
            self.maxConnectionsPerAddress = maxConnectionsPerAddress
            self.cacheBytes = cacheBytes
        }
    }
}
