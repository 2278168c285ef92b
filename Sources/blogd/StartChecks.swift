import BlogSockets
import Foundation
import Logging

/// What `blogd serve` checks once at start, before the work of the page
/// check: warnings about how it was started, and its ports.
enum StartChecks {
    /// Everything `serve` does before it opens the database: the warnings,
    /// the ports tried (before the page check, which may take minutes: a
    /// port in use is said at once), whether the database may be made
    /// (`DatabaseCreation`), the public folder made if missing. Returns
    /// whether to make the database; a problem stops with one line.
    static func prepare(_ settings: BlogConfig, initialize: Bool, logger: Logger) throws -> Bool {
        warn(logger: logger)
        do { try probePorts(settings) } catch { throw fail(error.description) }
        let creation: DatabaseCreation.Decision
        do {
            creation = try DatabaseCreation.decide(database: settings.database, publicFolder: settings.publicFolder,
                                                   initialize: initialize)
        } catch {
            throw fail(error.description)
        }
        try makePublicFolder(settings, logger: logger)
        return creation == .create
    }

    /// One warning per unknown `BLOGD_*` variable (a typo would otherwise
    /// be ignored without a word).
    static func warn(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) {
        for (name, nearest) in EnvironmentCheck.unknown(environment) {
            let hint = nearest.map { " (did you mean \($0)?)" } ?? ""
            logger.warning("unknown environment variable \(name) ignored\(hint)")
        }
    }

    /// One warning when running as root: once the server is up, so that a
    /// start that fails still says one line.
    static func warnIfRoot(logger: Logger) {
        if geteuid() == 0 {
            logger.warning("running as root: the database and pages belong to root, and a flaw would reach the whole machine; run blogd as a user of its own (config/blogd.service does)")
        }
    }

    /// A port in use (or privileged).
    struct PortInUse: Error, CustomStringConvertible {
        let what: String
        let host: String
        let port: Int
        let error: SocketError
        /// As the listener itself would say it.
        var description: String {
            let shown = host.contains(":") ? "[\(host)]" : host
            let reason = error.errno.map { String(cString: strerror($0)) } ?? "\(error)"
            switch what {
            case "http_port": return "HTTP: cannot listen on \(shown):\(port): \(reason)"
            case "https_port": return "HTTPS: cannot listen on \(shown):\(port): \(reason)"
            case "metrics_port": return "metrics: cannot listen on \(shown):\(port): \(reason)"
            default: return "blog port: \(error)"
            }
        }
    }

    /// Binds each fixed port the configuration names and lets it go again,
    /// so that a port in use stops the start before the page check, which
    /// reads every blog, and not after it. Port 0 (any free one) cannot
    /// be taken.
    static func probePorts(_ settings: BlogConfig) throws(PortInUse) {
        var ports = [("blog port", settings.host, settings.port)]
        if let http = settings.httpPort { ports.append(("http_port", settings.host, http)) }
        if let https = settings.httpsPort { ports.append(("https_port", settings.host, https)) }
        if let metrics = settings.metricsPort { ports.append(("metrics_port", settings.metricsHost, metrics)) }
        for (what, host, port) in ports where port != 0 {
            do {
                let sockets = try ListeningSocket.bind(host: host, port: port, backlog: 1)
                sockets.forEach { $0.socket.close() }
            } catch {
                // Only what the real bind would meet too: an address family
                // this host lacks is the listener's own business.
                guard let code = error.errno, code == EADDRINUSE || code == EACCES else { continue }
                throw PortInUse(what: what, host: host, port: port, error: error)
            }
        }
    }
}
