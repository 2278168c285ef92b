import BlogSockets

/// One hostile address's behaviour during `blogbench attack`.
protocol Attacker: Sendable {
    /// Threads `run` is called on, each with its own index.
    var threads: Int { get }
    /// Work before the clock starts (users to post as); a failure ends the
    /// run before anything is measured.
    func setUp() throws(BenchFailure)
    /// Attacks until the window ends, then closes everything it opened.
    func run(thread: Int, window: AttackWindow) -> AttackTally
    /// One line for the report: what it did and what it got.
    func summary(of tally: AttackTally) -> String
}

extension Attacker {
    func setUp() throws(BenchFailure) {}
}

/// The baseline: nobody attacks.
struct NoAttack: Attacker {
    var threads: Int { 0 }
    func run(thread: Int, window: AttackWindow) -> AttackTally { AttackTally() }
    func summary(of tally: AttackTally) -> String { "none" }
}

extension AttackKind {
    /// The attacker of this kind, from `source` to the blog port `blog` or
    /// the HTTP port `http` (which set-up has checked for every kind that
    /// `needsHTTP`, so it is there when used).
    func attacker(blog: SocketAddress, http: SocketAddress?, sources: [SocketAddress],
                  connections: Int, timeout: Double, upload: (photo: [UInt8], token: String)? = nil,
                  webmentionTarget: String? = nil) -> any Attacker {
        let blogRoute = Route(server: blog, sources: sources)
        switch self {
        case .none:
            return NoAttack()
        case .loginFlood:
            return RequestFlood(request: .login, threads: Self.floodThreads, route: blogRoute, timeout: timeout)
        case .registerFlood:
            return RequestFlood(request: .register, threads: Self.floodThreads, route: blogRoute, timeout: timeout)
        case .bigPosts:
            return RequestFlood(request: .bigPosts(users: (0..<Self.bigPostThreads).map { _ in RandomName.make("big") },
                                                   password: RandomName.make("pw", length: 16)),
                                threads: Self.bigPostThreads, route: blogRoute, timeout: timeout)
        case .httpHeaders:
            return HeaderFlood(route: Route(server: http!, sources: sources), connections: Self.headerConnections,
                               lineBytes: Self.headerLineBytes, timeout: timeout)
        case .httpIdle:
            return ConnectionHolder(route: Route(server: http!, sources: sources), target: connections, timeout: timeout)
        case .connectionHog:
            return ConnectionHolder(route: blogRoute, target: connections, timeout: timeout)
        case .uploadFlood:
            return UploadFlood(route: Route(server: http!, sources: sources), threads: Self.uploadThreads,
                               photo: upload?.photo ?? [], token: upload?.token ?? "", timeout: timeout)
        case .webmentionFlood:
            return WebmentionFlood(route: Route(server: http!, sources: sources), threads: Self.webmentionThreads,
                                   target: webmentionTarget ?? "http://localhost/nobody/1.html", timeout: timeout)
        case .inboxFlood:
            return InboxFlood(route: Route(server: http!, sources: sources), threads: Self.inboxThreads,
                              target: webmentionTarget ?? "http://localhost/ap/nobody/posts/1",
                              keyHost: "http://127.0.0.1:9", timeout: timeout)
        }
    }
}
