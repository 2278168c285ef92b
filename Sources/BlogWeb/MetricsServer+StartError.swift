extension MetricsServer {
    /// Why the metrics listener could not start.
    public enum StartError: Error, Equatable, Sendable, CustomStringConvertible {
        case badHost(String)
        case cannotListen(host: String, port: Int, reason: String)

        public var description: String {
            switch self {
            case .badHost(let host):
                "metrics: cannot listen on '\(host)': give an IPv4 or IPv6 address, localhost or *"
            case .cannotListen(let host, let port, let reason): "metrics: cannot listen on \(host):\(port): \(reason)"
            }
        }
    }
}
