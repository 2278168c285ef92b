import BlogCore
import BlogWire
import BlogLimits

/// Where a complete message goes: three lanes, so that no kind of request
/// waits behind another.
///
/// - A message that names no known command is answered on the event loop at
///   once: there is no work in it, and a flood of them must not queue
///   behind real requests.
/// - Register and login hash a password. The address's hash budget is
///   checked first (an address over it takes no place in the lane), then
///   they go to the hash lane, bounded by the work it holds, where
///   addresses with a recent success go first, then new ones, then those
///   whose latest hash failed (`AddressStanding`); past the budget or the
///   lane, `err:BUSY`.
/// - Everything else (newpost) goes to the post lane, after the address's
///   budget of post bytes.
///
/// In both lanes the service carries the request out on Dispatch, and the
/// reply comes back to the loop through `done`.
final class RequestRouter: Sendable {
    let service: BlogService
    let posts: Lane
    let hashing: HashLane
    let hashBudget: AddressBudget
    let postBudget: AddressBudget
    let standing: AddressStanding
    private let audit: AuditLog
    private let clock: ServerClock

    init(service: BlogService, posts: Lane, hashing: HashLane, hashBudget: AddressBudget, postBudget: AddressBudget,
         standing: AddressStanding = AddressStanding(), audit: AuditLog, clock: ServerClock) {
        self.standing = standing
        self.service = service
        self.posts = posts
        self.hashing = hashing
        self.hashBudget = hashBudget
        self.postBudget = postBudget
        self.audit = audit
        self.clock = clock
    }

    /// Answers `body` at once (returns the outcome), or hands it to a lane
    /// and returns nil; the lane's worker then calls `done` with the
    /// outcome and the session as the request left it.
    func route(_ body: [UInt8], session: Session, from key: AddressKey, at started: Moment,
               done: @escaping @Sendable (Outcome, Session) -> Void) -> Outcome? {
        guard let command = Request.command(of: body) else {
            return answer(Outcome(reply: Self.unknownCommandReply(body)), nil, session)
        }
        return dispatch(command, cost: body.count, session: session, from: key, at: started, done: done,
                        step: { [service] session in service.passwordStep(message: body, session: session) }) { [service] session in
            service.handle(message: body, session: &session)
        }
    }

    /// The same for a request another front door parsed (the web client,
    /// Micropub), with the photos (uploads stored already) a `newpost` or
    /// `geopost` shows: the same budgets, lanes and metrics as the blog
    /// port's. `inline`: a caller on a bounded pool of its own (the web's
    /// application threads) carries out a post-lane request itself, so no
    /// thread of its waits parked while a lane thread works.
    func route(_ request: Request, extras: PostExtras = PostExtras(), session: Session, from key: AddressKey,
               at started: Moment, inline: Bool = false,
               done: @escaping @Sendable (Outcome, Session) -> Void) -> Outcome? {
        // The request's own command always exists.
        let command = Request.Command(rawValue: request.command) ?? .newpost
        // The photos' names and alt texts, and the HTML source, count as
        // fields do (the photos' bytes were paid for by the upload, on its
        // own front door).
        let cost = request.fields.reduce(request.command.utf8.count + extras.bytes) { $0 + 1 + $1.utf8.count }
        return dispatch(command, cost: cost, session: session, from: key, at: started, inline: inline, done: done,
                        step: { [service] session in service.passwordStep(of: request, session: session) }) { [service] session in
            service.outcome(of: request, extras: extras, session: &session)
        }
    }

    /// `work` carries out a request that hashes no password; `step` cuts
    /// one that does where its hash is (`PasswordStep`), so that no lane
    /// thread waits for a hashing thread.
    private func dispatch(_ command: Request.Command, cost bytes: Int, session: Session, from key: AddressKey,
                          at started: Moment, inline: Bool = false,
                          done: @escaping @Sendable (Outcome, Session) -> Void,
                          step: @escaping @Sendable (Session) -> PasswordStep,
                          work: @escaping @Sendable (inout Session) -> Outcome) -> Outcome? {
        var session = session
        if command.hashesPassword { session.standing = standing.standing(of: key, at: started) }
        let complete: @Sendable (Outcome, Session) -> Void = { [audit, clock, standing] outcome, session in
            let now = clock.now()
            if command.hashesPassword {
                standing.record(outcome.reply, for: key, at: now)
            } else {
                LaneMetrics.shared.postDepth.decrement()
            }
            let seconds = now.seconds(since: started)
            RequestMetrics.shared.record(command, outcome.reply, seconds: seconds)
            audit.request(outcome, peer: session.peerAddress, seconds: seconds)
            done(outcome, session)
        }
        guard command.hashesPassword else {
            // Listing, editing and deleting read and rewrite more than their
            // few bytes say: a list is charged as a small post at least, an
            // edit or deletion (every page it was on, two feeds and the
            // index, before the reply) as a larger one.
            let cost = switch command {
            case .posts: max(bytes, Self.leastListCost)
            case .editpost, .delpost: max(bytes, Self.leastEditCost)
            default: bytes
            }
            guard postBudget.take(Double(cost), for: key, at: started) else {
                BudgetMetrics.shared.postBytes.increment()
                return answer(Outcome(reply: .busy, command: command.rawValue), command, session)
            }
            LaneMetrics.shared.postDepth.increment()
            let job: @Sendable () -> Void = { [clock, session] in
                var session = session
                LaneMetrics.shared.postWait.recordSeconds(clock.now().seconds(since: started))
                let outcome = work(&session)
                complete(outcome, session)
            }
            if inline { job() } else { posts.submit(job) }
            return nil
        }
        // The budget first: an address over it must not take a place in
        // the lane, even for a moment, from one that is not.
        guard hashBudget.take(for: key, at: started) else {
            BudgetMetrics.shared.hashes.increment()
            return answer(Outcome(reply: .busy, command: command.rawValue), command, session)
        }
        guard hashing.reserve(session.standing) else {
            BudgetMetrics.shared.hashLane.increment()
            return answer(Outcome(reply: .busy, command: command.rawValue), command, session)
        }
        // (The wait for a hashing thread is measured by the service.)
        hashing.run(session.standing, session: session, step: step, complete: complete)
        return nil
    }

    /// Bytes of post budget a `posts` takes at least.
    static let leastListCost = 1024
    /// Bytes of post budget an `editpost` or `delpost` takes at least: with
    /// the default budget, 32 a second from one address.
    static let leastEditCost = 8192

    /// An outcome given at once, on the loop (no lane, so no duration).
    private func answer(_ outcome: Outcome, _ command: Request.Command?, _ session: Session) -> Outcome {
        RequestMetrics.shared.record(command, outcome.reply, seconds: nil)
        audit.request(outcome, peer: session.peerAddress, seconds: 0)
        return outcome
    }

    /// `err:CMD`, or `err:ARGS` when the message is not even UTF-8.
    private static func unknownCommandReply(_ body: [UInt8]) -> Reply {
        do {
            _ = try Request(message: body)
            return .unknownCommand
        } catch {
            return error.reply
        }
    }
}
