extension MetricsServer {
    /// What the metrics listener allows: enough for a scraper and an
    /// operator's `curl`, nothing a flood could use.
    ///
    ///     var limits = MetricsServer.Limits()
    ///     limits.maxConnections = 4
    public struct Limits: Sendable, Equatable {
        /// Connections open at once; past it the next ones wait in a
        /// backlog of 16 until one closes (each closes after its reply).
        /// Default 8.
        public var maxConnections: Int
        /// Bytes of the request line or a header field, and of all fields.
        /// Default 4 KiB.
        public var maxHeaderBytes: Int
        /// Time allowed for each step: the request in, the reply out.
        /// Default 5 seconds.
        public var timeout: Duration

        public init(maxConnections: Int = 8, maxHeaderBytes: Int = 4096, timeout: Duration = .seconds(5)) {
            self.maxConnections = maxConnections
            self.maxHeaderBytes = maxHeaderBytes
            self.timeout = timeout
        }
    }
}
