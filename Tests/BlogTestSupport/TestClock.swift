import Foundation
import Synchronization

/// A clock tests move by hand.
public final class TestClock: Sendable {
    /// 2027-01-15T08:00:00Z.
    public static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private let current: Mutex<Date>

    public init(_ start: Date = TestClock.start) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// A closure reading this clock, for `now:` parameters.
    public var closure: @Sendable () -> Date { { [self] in self.now } }
}
