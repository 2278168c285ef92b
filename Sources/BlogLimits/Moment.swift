/// A point on a monotonic clock, in nanoseconds from an arbitrary start.
///
/// The connection logic never reads a clock itself: every event carries
/// its moment, so tests drive time by hand.
public struct Moment: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// `seconds` later (negative values are treated as 0).
    public func adding(seconds: Double) -> Moment {
        Moment(nanoseconds: nanoseconds &+ UInt64(max(0, seconds) * 1e9))
    }

    /// Seconds from `earlier` to this moment (0 when `earlier` is later).
    public func seconds(since earlier: Moment) -> Double {
        nanoseconds > earlier.nanoseconds ? Double(nanoseconds - earlier.nanoseconds) / 1e9 : 0
    }

    /// The moment `seconds` after the clock's start (a `Date`'s seconds
    /// since 1970 serve where a wall clock is all there is).
    public init(seconds: Double) {
        nanoseconds = UInt64(max(0, seconds) * 1e9)
    }

    public static func < (a: Moment, b: Moment) -> Bool { a.nanoseconds < b.nanoseconds }

    public var description: String { "\(Double(nanoseconds) / 1e9) s" }
}
