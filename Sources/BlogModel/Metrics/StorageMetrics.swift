import Metrics

/// What storage failures cost, counted: failed calls by kind, and
/// deadlines hit.
public struct StorageMetrics: Sendable {
    /// Made once, with the first `MeteredStorage` (or at first use), from
    /// the metrics system then in force.
    public static let shared = StorageMetrics()

    private let errors: [String: Counter] = Dictionary(uniqueKeysWithValues: StorageError.metricKinds.map {
        ($0, Counter(label: MetricName.storageErrors, dimensions: [("kind", $0)]))
    })
    private let deadlines = Counter(label: MetricName.storageDeadlines)

    /// Counts `error`; answers (a taken name, an unknown user) are no failures.
    public func record(_ error: StorageError) {
        if case .deadlineExceeded = error { return deadlines.increment() }
        // A lookup by name, but only when a call failed.
        guard let kind = error.metricKind else { return }
        errors[kind]?.increment()
    }
}

extension StorageError {
    /// Every `metricKind` there is.
    package static let metricKinds = ["sqlite", "postgres", "unreachable", "closed", "failed", "outcome_unknown", "missing",
                              "cannot_open"]

    /// The `kind` label of a failure; nil for the answers a caller can
    /// cause (a taken name, an unknown user or photo) and for deadlines, which are
    /// counted apart. Never the message, which may name a user or a path.
    package var metricKind: String? {
        switch self {
        case .nameTaken, .unknownUser, .unknownPhoto, .deadlineExceeded: nil
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        case .unreachable: "unreachable"
        case .closed: "closed"
        case .failed: "failed"
        case .outcomeUnknown: "outcome_unknown"
        case .missing: "missing"
        case .cannotOpen: "cannot_open"
        }
    }
}
