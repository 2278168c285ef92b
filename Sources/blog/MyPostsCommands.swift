import ArgumentParser
import BlogClient
import BlogWire

/// Options shared by `posts`, `edit` and `delete`: they act as NAME, so
/// they log in first unless told not to.
struct AuthorOptions: ParsableArguments {
    @Argument(help: "The username.")
    var name: String

    @Flag(help: "Do not log in first (rely on an earlier `blog login`).")
    var noLogin = false

    /// Logs in unless `--no-login`.
    func logIn(_ server: ServerOptions) throws {
        guard !noLogin else { return }
        let password = try Password.obtain(for: name, purpose: "Password")
        try LoginCommand.logIn(name, password, server)
    }

    var refusal: String {
        noLogin ? "refused: not \(name)'s post, no such post, or \(name) is not logged in from this address"
            : "refused: not \(name)'s post, or no such post"
    }
}

/// `blog posts NAME`: the newest 50 posts, one line each.
struct PostsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "posts",
        abstract: "List NAME's newest posts: ID, date (UTC) and title, one a line (logs in first).")

    @OptionGroup var author: AuthorOptions
    @OptionGroup var server: ServerOptions

    func validate() throws {
        try Arguments.checkUsername(author.name)
    }

    func run() throws {
        try author.logIn(server)
        let (reply, posts) = try server.call { client throws(BlogClientError) in try client.posts(user: author.name) }
        guard reply == .ok else { throw Exit.failure(for: reply, refusal: "refused: \(author.name) is not logged in from this address") }
        for post in posts { print("\(post.id)\t\(post.date)\t\(post.title)") }
    }
}

/// `blog edit NAME ID --title T`: replaces a post's title and text.
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Replace the title and text of NAME's post ID (logs in first).",
        discussion: "The text comes from --file, or from standard input, as for `blog post`. Prints 'edited'.")

    @OptionGroup var author: AuthorOptions
    @Argument(help: "The post's id (see `blog posts`).")
    var id: Int64
    @Option(name: [.short, .long], help: "The new title: 1 to 200 characters, no ':'.")
    var title: String
    @Option(name: [.short, .long], help: ArgumentHelp("Read the text from this file ('-': standard input).", valueName: "file"))
    var file: String?
    @OptionGroup var server: ServerOptions

    func validate() throws {
        try Arguments.checkUsername(author.name)
        try Arguments.checkTitle(title)
    }

    func run() throws {
        let content = try PostText.read(path: file)
        do {
            _ = try Request.editing(user: author.name, id: id, title: title, content: content).wireMessage()
        } catch {
            throw Exit.failure(for: error, server: server)
        }
        try author.logIn(server)
        let reply = try server.call { client throws(BlogClientError) in
            try client.edit(user: author.name, id: id, title: title, content: content)
        }
        guard reply == .ok else { throw Exit.failure(for: reply, refusal: author.refusal) }
        Exit.succeed("edited")
    }
}

/// `blog delete NAME ID`: deletes a post.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete NAME's post ID (logs in first); its page then answers 410 Gone. It waits in the trash, restorable from the web client or Micropub, for the server's trash_days.")

    @OptionGroup var author: AuthorOptions
    @Argument(help: "The post's id (see `blog posts`).")
    var id: Int64
    @OptionGroup var server: ServerOptions

    func validate() throws {
        try Arguments.checkUsername(author.name)
    }

    func run() throws {
        do {
            _ = try Request.deleting(user: author.name, id: id).wireMessage()
        } catch {
            throw Exit.failure(for: error, server: server)
        }
        try author.logIn(server)
        let reply = try server.call { client throws(BlogClientError) in try client.delete(user: author.name, id: id) }
        guard reply == .ok else { throw Exit.failure(for: reply, refusal: author.refusal) }
        Exit.succeed("deleted")
    }
}
