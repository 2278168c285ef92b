import ArgumentParser
import BlogClient

/// `blog register NAME`: creates a user and their page.
struct RegisterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create a user (and their page).",
        discussion: "Prints 'registered NAME', or 'name taken' (exit code 1)."
    )

    @Argument(help: "1 to 32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.")
    var name: String

    @OptionGroup var server: ServerOptions

    func validate() throws {
        try Arguments.checkUsername(name)
    }

    func run() throws {
        let password = try Password.obtain(for: name, purpose: "New password")
        let reply = try server.call { client throws(BlogClientError) in
            try client.register(user: name, password: password)
        }
        guard reply == .ok else { throw Exit.failure(for: reply, refusal: "name taken") }
        Exit.succeed("registered \(name)")
    }
}
