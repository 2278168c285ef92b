import Synchronization
#if canImport(Glibc)
import Glibc
import BlogLimits
#endif

/// Where the event loops read the time: the system's monotonic clock, or a
/// clock a test moves by hand.
public enum ServerClock: Sendable {
    case system
    case manual(ManualClock)

    /// The time now.
    public func now() -> Moment {
        switch self {
        case .system:
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Moment(nanoseconds: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))
        case .manual(let clock):
            return clock.now
        }
    }
}

/// A clock that moves only when told, so that timeouts in tests do not
/// depend on how busy the machine is.
///
///     let clock = ManualClock()
///     options.clock = .manual(clock)
///     ...
///     clock.advance(by: 10)   // every armed read timeout of 10 s fires now
public final class ManualClock: Sendable {
    private struct State {
        var now: Moment
        var watchers: [@Sendable () -> Void] = []
    }

    private let state: Mutex<State>

    public init(start: Moment = Moment(nanoseconds: 1_000_000_000)) {
        state = Mutex(State(now: start))
    }

    public var now: Moment { state.withLock { $0.now } }

    /// Moves the clock on and wakes every event loop that reads it, so
    /// that timers due by then fire.
    public func advance(by seconds: Double) {
        let watchers = state.withLock { state in
            state.now = state.now.adding(seconds: seconds)
            return state.watchers
        }
        watchers.forEach { $0() }
    }

    /// `wake` is called after every `advance`.
    func watch(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.watchers.append(wake) }
    }
}
