import BlogWire

/// What the clients send: user names, passwords, posts, as wire bytes.
///
/// Names are built from a per-run prefix so a rerun against the same
/// database never meets its earlier users. All text is ASCII without `:`
/// where a field must not hold one, so every message is valid by the rules.
struct Workload: Sendable {
    let mix: Mix
    let prefix: String
    let postSize: Int
    let prefillPosts: Int
    /// One password for all users of the run: the bench measures the
    /// server, not password variety.
    let password: String
    /// The content of every measured post, `postSize` bytes.
    let content: String
    /// The content of every prefill post.
    let prefillContent: String

    init(mix: Mix, prefix: String, postSize: Int, linked: Bool = false, prefillPosts: Int, prefillContent: String? = nil) {
        self.mix = mix
        self.prefix = prefix
        self.postSize = postSize
        self.prefillPosts = prefillPosts
        self.password = "bench-\(prefix)-secret"
        self.content = linked ? Self.linkedText(bytes: postSize) : Self.text(bytes: postSize)
        self.prefillContent = prefillContent ?? content
    }

    /// Login and newpost need a user per client that exists before measuring.
    var needsUsers: Bool { !mix.kinds.isDisjoint(with: [.login, .newpost]) }

    /// newpost is accepted only after a login from this address, so the
    /// preparation logs each user in (prefill posts need that too).
    var needsLogin: Bool { mix.kinds.contains(.newpost) || prefillPosts > 0 }

    /// The user prepared for client `client`.
    func userName(client: Int) -> String { "\(prefix)u\(client)" }

    /// A name nobody has: `register` requests each create a fresh user.
    func freshName(client: Int, counter: Int) -> String { "\(prefix)c\(client)n\(counter)" }

    /// The message for one request; `counter` is the client's request number,
    /// which keeps registered names and post titles distinct.
    func message(_ kind: RequestKind, client: Int, counter: Int) -> [UInt8] {
        switch kind {
        case .register: Self.encode("register", freshName(client: client, counter: counter), password)
        case .login: login(client: client)
        case .newpost: post(client: client, counter: counter)
        case .bad: Self.encode("bench", "x")
        }
    }

    func register(client: Int) -> [UInt8] { Self.encode("register", userName(client: client), password) }
    func login(client: Int) -> [UInt8] { Self.encode("login", userName(client: client), password) }
    func post(client: Int, counter: Int) -> [UInt8] {
        Self.encode("newpost", userName(client: client), "Bench post \(counter)", content)
    }

    /// A post made before measuring, to fill the user's pages.
    func prefillPost(client: Int, counter: Int) -> [UInt8] {
        Self.encode("newpost", userName(client: client), "Prefill \(counter)", prefillContent)
    }

    /// `command:field:...[E];`, framed by BlogCore's codec, so there is one
    /// definition of the wire form.
    static func encode(_ command: String, _ fields: String...) -> [UInt8] {
        Frame.encode(command, fields)
    }

    /// `bytes` bytes of ASCII prose with a line break now and then, so posts
    /// exercise the page's line-break handling like real text does.
    /// `text(bytes:)` opening with two links and three hashtags. The links
    /// are TEST-NET addresses (RFC 5737): their Webmentions are queued
    /// with the post, and the sender refuses them without a packet sent.
    static func linkedText(bytes: Int) -> String {
        let opening = "See http://192.0.2.1/notes/1 and https://192.0.2.2/a?b=c #swift #blogd #bench\n"
        return String((opening + text(bytes: bytes)).utf8.prefix(max(bytes, opening.utf8.count)))!
    }

    static func text(bytes: Int) -> String {
        let sentence = Array("Lorem ipsum dolor sit amet, consectetur adipiscing elit. Sed do eiusmod tempor.\n".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes)
        while out.count < bytes { out += sentence.prefix(bytes - out.count) }
        return String(decoding: out, as: UTF8.self)
    }
}
