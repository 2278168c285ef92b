import ArgumentParser
import BlogClient
import BlogWire

/// `blog post NAME --title T`: logs in, then publishes a post.
struct PostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post",
        abstract: "Publish a post on NAME's page (logs in first).",
        discussion: """
            The text comes from --file, or from standard input; one final line \
            break is dropped, the others are kept. blog first logs in (the \
            password from BLOG_PASSWORD or the terminal), then sends the post: \
            two connections, as the original app does. The server takes a post \
            only from an address logged in as NAME; with --no-login, blog sends \
            the post alone, relying on a `blog login` from this machine within \
            the server's login lease. Prints 'posted', or 'post refused' (exit \
            code 1).
            """
    )

    @Argument(help: "The username.")
    var name: String

    @Option(name: [.short, .long], help: "The title: 1 to 200 characters, no ':'.")
    var title: String

    @Option(name: [.short, .long], help: ArgumentHelp("Read the text from this file ('-': standard input).", valueName: "file"))
    var file: String?

    @Option(help: ArgumentHelp("Where it was written: decimal degrees, e.g. 50.0875,14.4213 (sent as geopost).",
                               valueName: "lat,lon"))
    var at: String?

    @Flag(help: "Do not log in first (rely on an earlier `blog login`).")
    var noLogin = false

    @OptionGroup var server: ServerOptions

    func validate() throws {
        try Arguments.checkUsername(name)
        try Arguments.checkTitle(title)
        _ = try place()
    }

    /// `--at`, as a place; nil without it.
    func place() throws -> Place? {
        guard let at else { return nil }
        let parts = at.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let place = try? Place(latitude: String(parts[0]), longitude: String(parts[1])) else {
            throw ValidationError("--at takes LAT,LON in decimal degrees (latitude -90...90, longitude -180...180), not '\(at)'")
        }
        return place
    }

    func run() throws {
        // The password first: typed at the terminal before the text is.
        let password = noLogin ? nil : try Password.obtain(for: name, purpose: "Password")
        let content = try PostText.read(path: file)
        // validate() checked it.
        let place = try? place()
        // Check the whole message before logging in, so a bad text sends nothing.
        do {
            _ = try Request.posting(user: name, title: title, content: content, place: place).wireMessage()
        } catch {
            throw Exit.failure(for: error, server: server)
        }
        if let password { try LoginCommand.logIn(name, password, server) }
        let reply = try server.call { client throws(BlogClientError) in
            try client.post(user: name, title: title, content: content, place: place)
        }
        let refusal = noLogin
            ? "post refused: \(name) is unknown or not logged in from this address (run `blog login \(name)`)"
            : "post refused: \(name) is not logged in from this address"
        guard reply == .ok else { throw Exit.failure(for: reply, refusal: refusal) }
        Exit.succeed("posted")
    }
}
