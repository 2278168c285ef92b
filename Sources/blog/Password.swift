import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Where `blog` gets a password: `BLOG_PASSWORD`, else the terminal.
enum Password {
    static let environmentVariable = "BLOG_PASSWORD"

    /// Whether `BLOG_PASSWORD` is set (even empty).
    static var isInEnvironment: Bool { getenv(environmentVariable) != nil }

    /// `BLOG_PASSWORD` when set; otherwise, when stdin is a terminal, a line
    /// typed after the prompt `PURPOSE for NAME: ` with echo off. Without
    /// either, a usage error.
    static func obtain(for name: String, purpose: String) throws(ExitCode) -> String {
        if let value = getenv(environmentVariable) { return String(cString: value) }
        guard isatty(STDIN_FILENO) == 1 else {
            throw Exit.fail("no password: set \(environmentVariable), or run blog in a terminal", Exit.usage)
        }
        guard let line = readWithoutEcho(prompt: "\(purpose) for \(name): ") else {
            throw Exit.fail("no password given", Exit.usage)
        }
        return line
    }

    /// Turns the terminal's echo off for one line, and back on even when
    /// the user interrupts with Ctrl-C.
    private static func readWithoutEcho(prompt: String) -> String? {
        StandardStreams.error(prompt)
        guard tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else { return readLine() }
        var silent = savedTerminal
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        let handlers = [SIGINT, SIGTERM, SIGHUP, SIGQUIT].map { ($0, signal($0, restoreAndReraise)) }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
        for (number, handler) in handlers { signal(number, handler) }
        if line == nil { StandardStreams.error("\n") }
        return line
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
