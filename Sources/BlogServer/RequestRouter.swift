import BlogCore
import BlogWire

/// Where a complete message goes.
///
/// A message that names no known command is answered on the event loop at
/// once: there is no work in it, and a flood of them must not queue behind
/// real requests. Everything else is parsed and carried out by the service
/// on Dispatch, and its reply comes back to the loop.
final class RequestRouter: Sendable {
    let service: BlogService
    private let workers: RequestLimiter
    private let audit: AuditLog
    private let clock: ServerClock

    init(service: BlogService, workers: RequestLimiter, audit: AuditLog, clock: ServerClock) {
        self.service = service
        self.workers = workers
        self.audit = audit
        self.clock = clock
    }

    /// Answers `body` at once (returns the outcome), or hands it to a
    /// worker and returns nil; the worker then calls `done` with the
    /// outcome and the session as the request left it.
    func route(_ body: [UInt8], session: Session, at started: Moment,
               done: @escaping @Sendable (Outcome, Session) -> Void) -> Outcome? {
        guard Request.hasKnownCommand(body) else {
            let reply: Reply
            do {
                _ = try Request(message: body)
                reply = .unknownCommand
            } catch {
                reply = error.reply
            }
            let outcome = Outcome(reply: reply)
            audit.request(outcome, peer: session.peerAddress, seconds: 0)
            return outcome
        }
        workers.submit { [service, audit, clock] in
            var session = session
            let outcome = service.handle(message: body, session: &session)
            audit.request(outcome, peer: session.peerAddress, seconds: clock.now().seconds(since: started))
            done(outcome, session)
        }
        return nil
    }
}
