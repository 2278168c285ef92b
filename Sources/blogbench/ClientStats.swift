import Histogram
import BlogWire

/// What one client measured; merged across clients at the end.
struct ClientStats: Sendable {
    /// Latencies above an hour are clamped: no request lives that long
    /// with the socket timeouts, and a fixed range keeps merging exact.
    static let highestMicroseconds: UInt64 = 3_600_000_000

    /// Latency of every request that got a reply, in microseconds.
    var latency = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestMicroseconds,
                                    numberOfSignificantValueDigits: .three)
    /// Replies that were the expected one.
    var ok = 0
    /// Other replies, counted by their text.
    var unexpected: [String: Int] = [:]
    /// Requests without a reply, counted by `WireError.kind`.
    var errors: [String: Int] = [:]

    var unexpectedCount: Int { unexpected.values.reduce(0, +) }
    var errorCount: Int { errors.values.reduce(0, +) }
    /// Requests that got a reply, expected or not.
    var replies: Int { ok + unexpectedCount }
    /// Every request sent or attempted.
    var attempts: Int { replies + errorCount }

    mutating func record(reply text: String, expected: Reply, microseconds: UInt64) {
        latency.record(min(max(microseconds, 1), Self.highestMicroseconds))
        if text == expected.rawValue { ok += 1 } else { unexpected[text, default: 0] += 1 }
    }

    mutating func record(error: WireError) {
        errors[error.kind, default: 0] += 1
    }

    mutating func merge(_ other: ClientStats) {
        latency.add(other.latency)
        ok += other.ok
        unexpected.merge(other.unexpected, uniquingKeysWith: +)
        errors.merge(other.errors, uniquingKeysWith: +)
    }
}
