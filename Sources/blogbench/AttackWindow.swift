import BlogSockets

/// The time the attack and the well-behaved client share: both stop at
/// `end`, and nothing they wait for may outlast it, so the report's "after
/// the attack" starts when the attack has really stopped.
struct AttackWindow: Sendable {
    /// Monotonic nanoseconds.
    let start: UInt64
    let end: UInt64

    init(seconds: Double) {
        start = monotonicNanoseconds()
        end = start + UInt64(seconds * 1e9)
    }

    var isOver: Bool { monotonicNanoseconds() >= end }

    var secondsLeft: Double {
        let now = monotonicNanoseconds()
        return now >= end ? 0 : Double(end - now) / 1e9
    }

    /// `timeout` seconds from now, or the end if that comes first; `cut`
    /// says it was the end, so running out is the end of the run, not a
    /// failure of the server.
    func deadline(timeout: Double) -> (deadline: Deadline, cut: Bool) {
        let left = secondsLeft
        return left < timeout ? (Deadline(seconds: left), true) : (Deadline(seconds: timeout), false)
    }
}
