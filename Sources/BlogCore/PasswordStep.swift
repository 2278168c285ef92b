import BlogAuth
import BlogWire

/// A register or login cut where its password hash is, so that no thread
/// waits parked while scrypt runs.
///
/// What comes before the hash (parsing, the cheap checks: a taken name, a
/// locked-out guesser) has run when the step is made. `hash` then runs on
/// a hashing thread (`HashingThreads`, nice 10), and `finish` (the
/// throttle's record, the login lease, the new user's row and page) on a
/// thread that may write, at normal priority: a lease written at nice 10
/// once starved a flood's answers.
///
///     switch service.passwordStep(message: body, session: session) {
///     case .answered(let outcome):
///         reply(outcome)
///     case .hash(let work):
///         threads.submit(rank: work.standing.rawValue, owner: work.owner) {
///             work.hash()
///             lane.submit { var session = session; reply(work.finish(&session)) }
///         }
///     }
public enum PasswordStep: Sendable {
    /// Answered without a hash: a malformed message, a taken name, closed
    /// registration, a locked-out guesser, a database that failed.
    case answered(Outcome)
    /// A hash to run, then its `finish`.
    case hash(PasswordWork)
}

/// The hash of a register or login, and what follows it (`PasswordStep`).
public struct PasswordWork: Sendable {
    /// Whose turn it is among the waiting hashes: the client's address,
    /// taken in turn with the others...
    public let owner: String
    /// ...within its standing, the best first.
    public let standing: Standing
    /// The hash, once, on a hashing thread.
    public let hash: @Sendable () -> Void
    /// What follows, once, after `hash`: the outcome, and the session as
    /// it leaves it (logged in, or not).
    public let finish: @Sendable (inout Session) -> Outcome

    public init(owner: String, standing: Standing, hash: @escaping @Sendable () -> Void,
                finish: @escaping @Sendable (inout Session) -> Outcome) {
        self.owner = owner
        self.standing = standing
        self.hash = hash
        self.finish = finish
    }
}
