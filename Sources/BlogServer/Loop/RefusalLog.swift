import Logging
import Synchronization
import BlogLimits

/// Connections turned away, logged as a rate: the first at once, then at
/// most one line per `interval` with the counts since the last line. A
/// crowd at the door otherwise writes a line per connection (26,000 lines
/// in 30 s were seen), which costs more than refusing them.
///
///     refusals.note(.overLimit, at: now)   // err:BUSY for a connection over a limit
///     refusals.note(.evicted, at: now)     // an idle connection gave its place to a newcomer
final class RefusalLog: Sendable {
    enum Kind: Sendable {
        /// Over the connection limit in all or per address.
        case overLimit
        /// Idle, evicted for a newcomer.
        case evicted
    }

    private struct Window {
        var overLimit = 0
        var evicted = 0
        var since: Moment?
    }

    let interval: Double
    private let logger: Logger
    private let window = Mutex(Window())
    private let totals = Mutex((overLimit: 0, evicted: 0))

    init(logger: Logger, interval: Double = 10) {
        self.logger = logger
        self.interval = interval
    }

    /// Since the start: connections refused over a limit, and evicted.
    var counts: (overLimit: Int, evicted: Int) { totals.withLock { $0 } }

    func note(_ kind: Kind, at now: Moment) {
        totals.withLock {
            switch kind {
            case .overLimit: $0.overLimit += 1
            case .evicted: $0.evicted += 1
            }
        }
        let due: Window? = window.withLock { window in
            switch kind {
            case .overLimit: window.overLimit += 1
            case .evicted: window.evicted += 1
            }
            if let since = window.since, now.seconds(since: since) < interval { return nil }
            defer { window = Window(since: now) }
            return window
        }
        if let due { log(due, until: now) }
    }

    /// Logs what is counted and not yet logged (at stop).
    func flush(at now: Moment) {
        let due = window.withLock { window in
            defer { window = Window(since: window.since) }
            return window
        }
        if due.overLimit + due.evicted > 0 { log(due, until: now) }
    }

    private func log(_ counts: Window, until now: Moment) {
        var metadata: Logger.Metadata = ["over_limit": "\(counts.overLimit)", "evicted": "\(counts.evicted)"]
        if let since = counts.since { metadata["seconds"] = "\((now.seconds(since: since) * 10).rounded() / 10)" }
        logger.notice("connections refused", metadata: metadata)
    }
}
