import BlogCore
import BlogSockets
import BlogWire
import Dispatch
import Synchronization
import BlogLimits

extension BlogServer {
    /// Carries out `request` for another front door (the web client,
    /// Micropub) through the blog port's own budgets and lanes: a login
    /// on the web spends the address's hash budget and waits in the same
    /// hash lane as one over the protocol, and a post the same post budget.
    /// Blocks the calling thread until the reply: call it from a thread
    /// that may wait, never an event loop. A post, edit or listing runs on
    /// the calling thread itself (it is on a bounded pool already); only a
    /// password hash waits for a hashing thread.
    ///
    ///     let outcome = server.perform(.login(user: alice, password: pw),
    ///                                  session: Session(peerAddress: "203.0.113.9"))
    ///     if outcome.reply == .loggedIn { ... }
    ///
    /// `err:BUSY` when the address is over its budget, the lane is full,
    /// or the server is not running. `photos` (names of the author's
    /// uploads, `BlogService.storePhoto`) go on a `newpost` or `geopost`.
    public func perform(_ request: Request, photos: [String] = [], session: Session) -> Outcome {
        perform(request, extras: PostExtras(photoNames: photos), session: session)
    }

    /// `perform(_:photos:session:)` with what the web client and Micropub
    /// add to a post or an edit (`PostExtras`: photos with alt text, the
    /// HTML source, an edit's photos and place).
    public func perform(_ request: Request, extras: PostExtras, session: Session) -> Outcome {
        guard let router, let address = try? SocketAddress(ip: session.peerAddress, port: 0) else {
            return Outcome(reply: .busy, command: request.command)
        }
        let answer = Mutex<Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let now = options.clock.now()
        if let at = router.route(request, extras: extras, session: session, from: AddressKey(address), at: now,
                                 inline: true, done: { outcome, _ in
            answer.withLock { $0 = outcome }
            done.signal()
        }) {
            return at
        }
        done.wait()
        return answer.withLock { $0 } ?? Outcome(reply: .databaseError, command: request.command)
    }
}
