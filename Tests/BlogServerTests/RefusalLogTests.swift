@testable import BlogServer
import Logging
import Synchronization
import Testing
import BlogLimits

/// Refusals are logged as a rate: the first at once, then one line per
/// interval with the counts, however many connections a crowd opens.
@Suite("RefusalLog")
struct RefusalLogTests {
    /// Collects the metadata of every line logged.
    final class Lines: Sendable {
        let all = Mutex<[Logger.Metadata]>([])
    }

    struct Collecting: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.all.withLock { $0.append(event.metadata ?? [:]) }
        }
    }

    @Test func aFloodOfRefusalsIsALineAnInterval() {
        let lines = Lines()
        let log = RefusalLog(logger: Logger(label: "test") { _ in Collecting(lines: lines) }, interval: 10)
        let start = Moment(nanoseconds: 1_000_000_000)
        log.note(.overLimit, at: start)
        #expect(lines.all.withLock { $0.count } == 1, "the first at once")
        for index in 1...10_000 {
            log.note(index % 10 == 0 ? .evicted : .overLimit, at: start.adding(seconds: Double(index) / 2000))
        }
        #expect(lines.all.withLock { $0.count } == 1, "5 s later: the 10 s window is not over")
        log.note(.overLimit, at: start.adding(seconds: 12))
        let logged = lines.all.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged[1]["over_limit"] == "9001" && logged[1]["evicted"] == "1000")
        log.note(.overLimit, at: start.adding(seconds: 13))
        log.flush(at: start.adding(seconds: 14))
        let final = lines.all.withLock { $0 }
        #expect(final.count == 3 && final[2]["over_limit"] == "1", "what is left is logged at stop")
        #expect(log.counts.overLimit == 9_003 && log.counts.evicted == 1_000)
    }
}
