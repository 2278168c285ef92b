/// A point in time by which a socket operation must be done.
struct Deadline {
    let instant: ContinuousClock.Instant

    /// `seconds` from now.
    init(seconds: Double) {
        instant = .now + .milliseconds(Int64((max(0, seconds) * 1000).rounded(.up)))
    }

    /// Milliseconds left, rounded up, for `poll`; 0 once passed.
    var remainingMilliseconds: Int32 {
        let left = instant - .now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: millis)
    }
}
