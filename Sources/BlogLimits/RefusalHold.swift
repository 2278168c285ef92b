/// How long a refusal to a client over its budget is held before it is
/// sent, the connection neither read nor answered meanwhile: on the blog
/// port an `err:BUSY`, on the web a `429` or a refusal before the body.
///
/// A client told to come back later otherwise comes back at once: a flood
/// of them would turn into a flood of connections, paid for with
/// everyone's CPU. One hold for every door (`busy_delay`).
///
///     let hold = RefusalHold(seconds: 1)
///     timer(at: hold.release(after: now))
public struct RefusalHold: Sendable, Equatable {
    /// Seconds; 0 sends at once.
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = max(0, seconds)
    }

    /// One second, the default of every door.
    public static let standard = RefusalHold(seconds: 1)
    /// No hold: refusals go at once (tests).
    public static let none = RefusalHold(seconds: 0)

    public var isHeld: Bool { seconds > 0 }

    /// When a refusal decided at `now` is sent.
    public func release(after now: Moment) -> Moment {
        now.adding(seconds: seconds)
    }

    /// The hold as a `Duration`.
    public var duration: Duration { .nanoseconds(Int64(seconds * 1e9)) }
}
