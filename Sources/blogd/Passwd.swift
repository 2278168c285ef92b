import ArgumentParser
import BlogCore
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
        guard let first = readWithoutEcho(prompt: "New password for \(name): "),
              let second = readWithoutEcho(prompt: "Again: ") else { throw fail("no password given") }
        guard first == second else { throw fail("the two passwords differ; nothing was changed") }
        return first
    }

    /// One line with the terminal's echo off, turned back on even when
    /// the admin interrupts with Ctrl-C.
    private static func readWithoutEcho(prompt: String) -> String? {
        FileHandleOutput.standardError(prompt)
        guard tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else { return readLine(strippingNewline: true) }
        var silent = savedTerminal
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        let handlers = [SIGINT, SIGTERM, SIGHUP, SIGQUIT].map { ($0, signal($0, restoreAndReraise)) }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
        for (number, handler) in handlers { signal(number, handler) }
        return line
    }
}

/// A prompt on standard error, unbuffered (stdout is the command's result).
private enum FileHandleOutput {
    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(STDERR_FILENO, &bytes, bytes.count)
    }
}

/// The terminal settings to restore; written before the handler is set.
nonisolated(unsafe) private var savedTerminal = termios()

/// Restores the echo, then dies of the signal as if never caught.
private let restoreAndReraise: @convention(c) (Int32) -> Void = { number in
    tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    signal(number, SIG_DFL)
    raise(number)
}
