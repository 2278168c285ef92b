import ArgumentParser
import BlogClient

/// `blog login NAME`: checks the password; lets this address post.
struct LoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in: check the password and let this address post as NAME.",
        discussion: """
            A login lets posts from this machine's address through for the \
            server's login lease (1 hour by default): see `blog post --no-login`. \
            Prints 'logged in as NAME', or 'login refused' (exit code 1).
            """
    )

    @Argument(help: "The username.")
    var name: String

    @OptionGroup var server: ServerOptions

    func validate() throws {
        try Arguments.checkUsername(name)
    }

    func run() throws {
        let password = try Password.obtain(for: name, purpose: "Password")
        try Self.logIn(name, password, server)
        Exit.succeed("logged in as \(name)")
    }

    /// Logs in, or reports why not and throws the exit code.
    static func logIn(_ name: String, _ password: String, _ server: ServerOptions) throws(ExitCode) {
        let reply = try server.call { client throws(BlogClientError) in
            try client.login(user: name, password: password)
        }
        guard reply == .ok else {
            throw Exit.failure(for: reply, refusal: "login refused: unknown name or wrong password")
        }
    }
}
