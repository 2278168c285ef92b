import Synchronization

/// A callback set once (by whoever wires blogd together) and called from
/// any thread, as often as the events come.
///
///     let written = Hook<String>()
///     written.set { name in cache.forget(name) }
///     written("alice.html")
///
/// Why not a `Mutex<((A) -> Void)?>`: a function type kept in a generic
/// container is reabstracted on the way into `withLock`'s `inout` and
/// again on the way out, and the write-back keeps both thunks. Each call
/// made the stored closure two thunks deeper, so a call cost grew with
/// every post, and the stack with it, until the thread overflowed. A
/// nominal box is stored as it is.
public final class Hook<Argument>: Sendable {
    private struct Call: Sendable {
        let run: @Sendable (Argument) -> Void
    }

    private let call = Mutex<Call?>(nil)

    public init() {}

    /// From now on, each event calls `action` (on the thread that saw it:
    /// `action` must not block).
    public func set(_ action: @escaping @Sendable (Argument) -> Void) {
        call.withLock { $0 = Call(run: action) }
    }

    /// Calls the action, if one is set.
    public func callAsFunction(_ argument: Argument) {
        call.withLock { $0 }?.run(argument)
    }
}

extension Hook where Argument == Void {
    /// Calls the action, if one is set.
    public func callAsFunction() { self(()) }
}
