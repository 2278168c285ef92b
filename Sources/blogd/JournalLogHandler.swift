import Logging

/// Log lines for systemd's journal, used when stderr is connected to it
/// (`JOURNAL_STREAM` is set): each line starts with its syslog priority
/// (`<6>` for info), which journald stores as the entry's priority, and
/// carries no timestamp of its own (the journal keeps one).
///
///     <6>blogd: listening on *:51515
///     <4>blogd.service: page not written user=alice error=...
struct JournalLogHandler: LogHandler {
    let label: String
    var stream: BatchedStandardError.Stream
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "<\(Self.priority(event.level))>\(label): \(event.message)"
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        for key in merged.keys.sorted() {
            line += " \(key)=\(merged[key]!)"
        }
        var output = stream
        output.write(line + "\n")
    }

    /// syslog(3)'s levels, as sd-daemon(3) reads them.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether stderr goes to the journal: systemd sets `JOURNAL_STREAM`
    /// to the device and inode of the stream it connected.
    static func journalIsStandardError(_ environment: [String: String]) -> Bool {
        environment["JOURNAL_STREAM"] != nil
    }
}
