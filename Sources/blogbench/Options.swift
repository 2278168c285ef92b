import ArgumentParser
import BlogWire

/// The command-line options of `blogbench`, checked before anything runs.
struct BenchOptions: ParsableArguments {
    @Option(help: "Server host name or address (IPv4 or IPv6).")
    var host = "127.0.0.1"

    @Option(help: "Server TCP port.")
    var port = 51515

    @Option(help: "Concurrent clients, each on its own thread.")
    var clients = 8

    @Option(help: ArgumentHelp("Seconds to measure (default 10 when --requests is not given).", valueName: "seconds"))
    var duration: Double?

    @Option(help: ArgumentHelp("Total requests to measure, shared by all clients (instead of --duration).", valueName: "n"))
    var requests: Int?

    @Option(help: "What to send: register, login, newpost, mixed or bad (an unknown command, answered err:CMD).")
    var op: Operation = .mixed

    @Option(help: ArgumentHelp("Ratio of request kinds for --op mixed (kinds: login, newpost, register, bad).",
                               valueName: "kind=weight,..."))
    var mix: String?

    @Flag(help: "Send many messages per connection (the server must run with keep_alive on). Default: one connection per request, as the original client.")
    var keepAlive = false

    @Option(help: ArgumentHelp("Bytes of content in each new post.", valueName: "bytes"))
    var postSize = 200

    @Flag(help: "Each new post's text opens with two links and three hashtags (same size): the cost of links, tags and queued Webmentions.")
    var linkedText = false

    @Option(help: ArgumentHelp("Before measuring, give each prepared user this many posts (big pages).", valueName: "n"))
    var prefillPosts = 0

    @Option(help: ArgumentHelp("Bytes of content in each prefill post (default: --post-size).", valueName: "bytes"))
    var prefillPostSize: Int?

    @Flag(help: "Prefill posts are all '\"' (six bytes each on the page once escaped), the costliest text there is.")
    var prefillQuotes = false

    @Option(help: "Prefix of the user names this run creates (default: random, so reruns do not collide).")
    var userPrefix: String?

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    @Option(help: ArgumentHelp("Seconds of unmeasured load before measuring.", valueName: "seconds"))
    var warmup: Double = 1

    @Option(help: ArgumentHelp("Socket send/receive timeout in seconds.", valueName: "seconds"))
    var timeout: Double = 10

    /// The default mix: mostly posting, as a blog app mostly is.
    static let defaultMix = "login=1,newpost=8,register=1"

    mutating func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535.") }
        guard (1...4096).contains(clients) else { throw ValidationError("--clients must be 1...4096.") }
        if duration != nil && requests != nil {
            throw ValidationError("Give --duration or --requests, not both.")
        }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive.") }
        if let requests, requests < 1 { throw ValidationError("--requests must be at least 1.") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        guard postSize >= 0 else { throw ValidationError("--post-size must not be negative.") }
        guard prefillPosts >= 0 else { throw ValidationError("--prefill-posts must not be negative.") }
        guard (prefillPostSize ?? 0) >= 0 else { throw ValidationError("--prefill-post-size must not be negative.") }
        if mix != nil && op != .mixed { throw ValidationError("--mix only applies to --op mixed.") }
        _ = try parsedMix()
        if let userPrefix {
            // The longest generated name is prefix + "c<client>n<counter>";
            // 16 characters leave room for that within the 32 allowed.
            guard userPrefix.utf8.count <= 16, (try? Username(userPrefix + "u0")) != nil else {
                throw ValidationError("--user-prefix must be 1...16 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.")
            }
        }
        let needsUsers = try workload(prefix: "x").needsUsers
        if prefillPosts > 0 && !needsUsers {
            throw ValidationError("--prefill-posts needs an op with prepared users (login, newpost, or a mix with them).")
        }
    }

    /// The mix this run uses: a single kind unless `--op mixed`.
    func parsedMix() throws -> Mix {
        switch op {
        case .register: return Mix(single: .register)
        case .login: return Mix(single: .login)
        case .newpost: return Mix(single: .newpost)
        case .bad: return Mix(single: .bad)
        case .mixed:
            do { return try Mix(parsing: mix ?? Self.defaultMix) } catch { throw ValidationError("--mix: \(error.message)") }
        }
    }

    /// What each client sends, with the given user-name prefix.
    func workload(prefix: String) throws -> Workload {
        Workload(mix: try parsedMix(), prefix: prefix, postSize: postSize, linked: linkedText, prefillPosts: prefillPosts,
                 prefillContent: prefillQuotes ? String(repeating: "\"", count: prefillPostSize ?? postSize)
                                               : Workload.text(bytes: prefillPostSize ?? postSize))
    }

    /// How long to measure, or `nil` when `--requests` bounds the run.
    var measuredSeconds: Double? { requests == nil ? (duration ?? 10) : nil }
}
