/// Counts of one connection kind.
struct KindCounts: Sendable, Encodable, Equatable {
    /// Connections attempted, failed connects included.
    var connections = 0
    var ok = 0
    var busy = 0
    /// The longest connection, connect to close, in nanoseconds: a slow
    /// server shows here before it shows as timeouts.
    var slowestNanoseconds: UInt64 = 0
    /// Failed connections by `ChurnFailure.reason`.
    var failuresByReason: [String: Int] = [:]

    var failures: Int { failuresByReason.values.reduce(0, +) }

    enum CodingKeys: String, CodingKey {
        case connections, ok, busy, failures
        case failuresByReason = "failures_by_reason"
        case slowestMs = "slowest_ms"
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connections, forKey: .connections)
        try container.encode(ok, forKey: .ok)
        try container.encode(busy, forKey: .busy)
        try container.encode(failures, forKey: .failures)
        try container.encode(failuresByReason, forKey: .failuresByReason)
        try container.encode(slowestMilliseconds, forKey: .slowestMs)
    }

    /// `slowestNanoseconds` in milliseconds, to 0.001.
    var slowestMilliseconds: Double { (Double(slowestNanoseconds) / 1000).rounded() / 1000 }

    mutating func merge(_ other: KindCounts) {
        connections += other.connections
        ok += other.ok
        busy += other.busy
        slowestNanoseconds = max(slowestNanoseconds, other.slowestNanoseconds)
        failuresByReason.merge(other.failuresByReason, uniquingKeysWith: +)
    }
}

/// What one churn thread counted; merged across threads at the end.
struct ChurnStats: Sendable {
    var byKind: [ChurnKind: KindCounts] = [:]
    /// Texts of unexpected replies, so a report says what the server said.
    var unexpectedReplies: [String: Int] = [:]

    mutating func record(_ kind: ChurnKind, _ outcome: ChurnOutcome, nanoseconds: UInt64) {
        var counts = byKind[kind, default: KindCounts()]
        counts.connections += 1
        counts.slowestNanoseconds = max(counts.slowestNanoseconds, nanoseconds)
        switch outcome {
        case .ok: counts.ok += 1
        case .busy: counts.busy += 1
        case .failed(let failure):
            counts.failuresByReason[failure.reason, default: 0] += 1
            if case .unexpectedReply(let text) = failure { unexpectedReplies[text, default: 0] += 1 }
        }
        byKind[kind] = counts
    }

    mutating func merge(_ other: ChurnStats) {
        for (kind, counts) in other.byKind { byKind[kind, default: KindCounts()].merge(counts) }
        unexpectedReplies.merge(other.unexpectedReplies, uniquingKeysWith: +)
    }

    /// Every kind's counts added up.
    var total: KindCounts {
        byKind.values.reduce(into: KindCounts()) { $0.merge($1) }
    }
}
