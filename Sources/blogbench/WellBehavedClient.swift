import BlogSockets
import BlogWire
#if canImport(Glibc)
import Glibc
#endif

/// What the well-behaved client measured over the run.
struct ProbeResult: Sendable {
    var byRequest: [ProbeRequest: ProbeStats] = [:]
    /// Rounds begun: an unknown command and a post each, a login every fifth.
    var rounds = 0
}

/// The client an attack must not starve: one user of the original app,
/// one connection per request, asking as fast as the replies come.
struct WellBehavedClient: Sendable {
    let route: Route
    /// The page server, when the run has one: a reader's `GET /index.html` each round.
    let pages: Route?
    let timeout: Double
    let user: String
    let password: String

    /// Every fifth round logs in again, as the app does now and then.
    static let loginEvery = 5
    /// Bytes of text in each post: a short blog entry.
    static let postBytes = 200

    init(route: Route, pages: Route? = nil, timeout: Double) {
        self.route = route
        self.pages = pages
        self.timeout = timeout
        user = RandomName.make("wb")
        password = RandomName.make("pw", length: 16)
    }

    /// Registers the user and logs it in, from the client's address, so
    /// its posts are under a valid lease from the start.
    func setUp() throws(BenchFailure) {
        try expect(Frame.encode("register", [user, password]), .registered, doing: "register \(user)")
        try expect(Frame.encode("login", [user, password]), .loggedIn, doing: "login \(user)")
    }

    private func expect(_ message: [UInt8], _ reply: Reply, doing what: String) throws(BenchFailure) {
        switch OneShot.exchange(message, on: route, timeout: timeout) {
        case .reply(let text) where text == reply.rawValue: return
        case .reply(let text): throw BenchFailure(message: "well-behaved client: \(what) from \(route.source.host): got \(text), not \(reply.rawValue)")
        case .failed(let failure): throw BenchFailure(message: "well-behaved client: \(what) from \(route.source.host): \(failure.reason)")
        case .cut: throw BenchFailure(message: "well-behaved client: \(what): cut off")
        }
    }

    /// Asks until the window ends; a request under way then is cut off and
    /// counted as unfinished.
    func run(window: AttackWindow) -> ProbeResult {
        var result = ProbeResult()
        let content = Workload.text(bytes: Self.postBytes)
        while !window.isOver {
            result.rounds += 1
            var requests: [ProbeRequest] = [.unknown, .newpost]
            if result.rounds % Self.loginEvery == 0 { requests.append(.login) }
            if pages != nil { requests.append(.page) }
            for request in requests where !window.isOver {
                let (outcome, nanoseconds) = switch request {
                case .unknown: OneShot.exchange(Frame.encode("bench", ["probe"]), on: route, window: window, timeout: timeout)
                case .newpost: OneShot.exchange(Frame.encode("newpost", [user, "Probe \(result.rounds)", content]),
                                                on: route, window: window, timeout: timeout)
                case .login: OneShot.exchange(Frame.encode("login", [user, password]), on: route, window: window, timeout: timeout)
                case .page: OneShot.get("/index.html", on: pages!, window: window, timeout: timeout)
                }
                result.byRequest[request, default: ProbeStats()].record(outcome, expected: request.expected, nanoseconds: nanoseconds)
                // A refused connect fails at once: pause rather than spin a
                // core the server needs on counting refusals.
                if case .failed(.connect) = outcome { usleep(10_000) }
            }
        }
        return result
    }
}
