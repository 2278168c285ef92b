import Foundation

/// When a failing send is due again: `first` seconds after its first try,
/// twice as long after each next one, never more than `longest` apart.
/// The Webmention sender and the ActivityPub delivery wait alike.
enum Backoff {
    /// The wait after the `attempts`-th try failed.
    static func delay(afterAttempt attempts: Int, first: Double, longest: Double) -> Double {
        let doubling = pow(2, Double(max(0, min(attempts - 1, 40))))
        return min(longest, first * doubling)
    }
}
