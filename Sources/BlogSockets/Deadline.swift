/// A point in time by which an operation must be done, on the monotonic
/// clock (wall-clock jumps do not move it).
///
///     let deadline = Deadline(seconds: 5)
///     try socket.connect(to: address, until: deadline)
public struct Deadline: Sendable, Comparable {
    public let instant: ContinuousClock.Instant

    /// `seconds` from now; never in the past.
    public init(seconds: Double) {
        instant = .now + .milliseconds(Int64((max(0, seconds) * 1000).rounded(.up)))
    }

    /// No deadline to speak of: a day from now.
    public static var distant: Deadline { Deadline(seconds: 86_400) }

    /// Whether it has passed.
    public var hasPassed: Bool { instant <= .now }

    /// Milliseconds left, rounded up, for `poll`; 0 once passed.
    public var remainingMilliseconds: Int32 {
        let left = instant - .now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: millis)
    }

    public static func < (a: Deadline, b: Deadline) -> Bool { a.instant < b.instant }
}
