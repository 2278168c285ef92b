import ArgumentParser

/// What the hostile address does during `blogbench attack`.
enum AttackKind: String, CaseIterable, ExpressibleByArgument, Sendable {
    case none
    case loginFlood = "login-flood"
    case registerFlood = "register-flood"
    case httpHeaders = "http-headers"
    case httpIdle = "http-idle"
    case bigPosts = "big-posts"
    case connectionHog = "connection-hog"
    case uploadFlood = "upload-flood"
    case webmentionFlood = "webmention-flood"
    case inboxFlood = "inbox-flood"

    /// Threads of the request floods: enough to keep the server's password
    /// hashing queue full whatever its cores.
    static let floodThreads = 64
    /// Posters of `big-posts`, each with its own user (and page).
    static let bigPostThreads = 4
    /// Connections of `http-headers` at a time.
    static let headerConnections = 2
    /// The header line of `http-headers`: far past any sane header limit.
    static let headerLineBytes = 512 * 1024
    /// The content of each `big-posts` post, in `"`: the page escapes each
    /// one to `&quot;`, six bytes, so a post grows the page by ~390 kB.
    static let bigPostContentBytes = 65_000
    /// Threads of `upload-flood`, each one upload at a time.
    static let uploadThreads = 8
    /// Threads of `webmention-flood`, each one Webmention at a time.
    static let webmentionThreads = 16
    /// Threads of `inbox-flood`, each one inbox POST at a time.
    static let inboxThreads = 16

    /// One line for `--help` and the report.
    var summary: String {
        switch self {
        case .none: "no attack: the baseline"
        case .loginFlood: "\(Self.floodThreads) threads looping login:<random name>:x, a new connection each"
        case .registerFlood: "\(Self.floodThreads) threads looping register:<random name>:pw, a new connection each"
        case .httpHeaders: "\(Self.headerConnections) HTTP connections each sending a \(Self.headerLineBytes / 1024) KiB header line, reconnecting"
        case .httpIdle: "idle HTTP connections, up to --connections, held and reopened"
        case .bigPosts: "\(Self.bigPostThreads) threads posting \(Self.bigPostContentBytes) '\"' (escaped sixfold) to their own pages"
        case .connectionHog: "idle blog-port connections, up to --connections, held and reopened"
        case .uploadFlood: "\(Self.uploadThreads) threads uploading --photo to /micropub/media with --token, a new connection each"
        case .webmentionFlood: "\(Self.webmentionThreads) threads posting Webmentions of --target to /webmention, a new connection each"
        case .inboxFlood: "\(Self.inboxThreads) threads posting Likes of --target to /ap/inbox signed with unknown key ids, a new connection each"
        }
    }

    /// Whether the attack goes to the HTTP port (`--http-port` needed).
    var needsHTTP: Bool { self == .httpHeaders || self == .httpIdle || self == .uploadFlood || self == .webmentionFlood
        || self == .inboxFlood }
}
