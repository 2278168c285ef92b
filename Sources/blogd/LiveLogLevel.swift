import Logging
import Synchronization

/// The log level every logger of the process follows, changed at run time
/// (SIGHUP): swift-log asks a handler for its level on every call, so
/// loggers made before a reload see the new level at once.
///
///     LiveLogLevel.shared.level = .debug
final class LiveLogLevel: Sendable {
    static let shared = LiveLogLevel()

    private let raw = Atomic<Int>(2) // info

    private static let levels = Logger.Level.allCases

    var level: Logger.Level {
        get { Self.levels[raw.load(ordering: .relaxed)] }
        set { raw.store(Self.levels.firstIndex(of: newValue) ?? 2, ordering: .relaxed) }
    }
}

/// `StreamLogHandler` at the live level.
///
/// A logger that sets its own level sets a floor for itself only (the
/// page server quiets Hummingbird's start-up lines to warnings this way):
/// had it set the live level, every logger of the process would have gone
/// quiet, the "listening on" line that scripts wait for among them.
struct LiveLevelHandler: LogHandler {
    var inner: any LogHandler
    let live: LiveLogLevel
    private var floor: Logger.Level = .trace

    init(inner: any LogHandler, live: LiveLogLevel) {
        self.inner = inner
        self.live = live
    }

    var logLevel: Logger.Level {
        get { max(live.level, floor) }
        set { floor = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        inner.log(event: event)
    }
}
