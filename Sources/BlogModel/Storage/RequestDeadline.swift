/// The moment by which the storage calls of one request must be done, so
/// that a request making several (a post: the insert, its page, taking it
/// back) is answered within one storage deadline, not one per call.
///
/// Stores bound each call by their own deadline and by what is left of
/// this one, when a request set it:
///
///     RequestDeadline.$end.withValue(.now + .seconds(3)) {
///         try storage.insertPost(...)          // then the page write, with what is left
///     }
public enum RequestDeadline {
    @TaskLocal public static var end: ContinuousClock.Instant?

    /// Seconds a storage call may take: `limit`, or what is left of the
    /// request's deadline when that is sooner (never below zero).
    public static func seconds(upTo limit: Double) -> Double {
        guard let end else { return limit }
        let (seconds, attoseconds) = (end - .now).components
        return max(0, min(limit, Double(seconds) + Double(attoseconds) / 1e18))
    }
}
