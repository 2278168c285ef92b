import Synchronization

/// Whether a transaction began before its caller gave up on it: the caller
/// at its deadline and the transaction's first step race to move it out of
/// waiting, and the first decides. A transaction that never began cannot
/// have committed, so its failure needs no settling.
final class CommitAttempt: Sendable {
    private static let waiting: UInt8 = 0, begun: UInt8 = 1, abandoned: UInt8 = 2
    private let state = Atomic<UInt8>(CommitAttempt.waiting)

    /// The transaction: false when its caller is gone (then it must not begin).
    func begin() -> Bool {
        state.compareExchange(expected: Self.waiting, desired: Self.begun, ordering: .acquiringAndReleasing).exchanged
    }

    /// The caller: true when the transaction had not begun (and now never will).
    func abandon() -> Bool {
        state.compareExchange(expected: Self.waiting, desired: Self.abandoned, ordering: .acquiringAndReleasing).exchanged
    }
}
