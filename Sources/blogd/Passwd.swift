import ArgumentParser
import BlogCore
import TerminalInput
#if canImport(Glibc)
import Glibc
#endif

struct Passwd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set a user's password: their web sessions and blog-port logins end; Micropub tokens stay.",
        discussion: """
            In a terminal the new password is asked twice, not echoed; otherwise it is the first line of standard \
            input: `printf '%s\\n' 'secret' | blogd passwd alice`. Never on the command line, where every local \
            user could read it. The rules are register's: 1 to 256 bytes.
            """)

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String

    func run() async throws {
        let password = try NewPassword.read(for: name)
        try await moderate(data, "moderation") { service throws(BlogService.ModerationError) in
            try service.setPassword(name, to: password)
            return "set the password of \(name); their web sessions and blog-port logins ended"
        }
    }
}

/// The new password of `blogd passwd`: typed twice without echo in a
/// terminal, else the first line of standard input.
enum NewPassword {
    static func read(for name: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else {
                throw fail("give the new password on standard input (one line)")
            }
            return line
        }
        guard let first = SilentLine.read(prompt: "New password for \(name): "),
              let second = SilentLine.read(prompt: "Again: ") else { throw fail("no password given") }
        guard first == second else { throw fail("the two passwords differ; nothing was changed") }
        return first
    }
}
