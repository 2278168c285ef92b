#if canImport(Glibc)
import Glibc
#endif

/// Reads one line from the terminal with its echo off: how `blog` and
/// `blogd passwd` ask for a password. The echo comes back even when the
/// user interrupts with Ctrl-C (or any of SIGINT, SIGTERM, SIGHUP,
/// SIGQUIT): the handler restores it, then dies of the signal as if it
/// had never been caught.
///
///     guard let password = SilentLine.read(prompt: "Password for alice: ") else { ... }
public enum SilentLine {
    /// Writes `prompt` to standard error (standard output is the
    /// command's result), then reads a line without echo; nil at the end
    /// of input. When standard input is no terminal it reads a plain line.
    public static func read(prompt: String) -> String? {
        var bytes = Array(prompt.utf8)
        _ = write(STDERR_FILENO, &bytes, bytes.count)
        guard tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else { return readLine(strippingNewline: true) }
        var silent = savedTerminal
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        let handlers = [SIGINT, SIGTERM, SIGHUP, SIGQUIT].map { ($0, signal($0, restoreAndReraise)) }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
        for (number, handler) in handlers { signal(number, handler) }
        if line == nil {
            var newline: [UInt8] = [0x0A]
            _ = write(STDERR_FILENO, &newline, 1)
        }
        return line
    }
}

/// The terminal settings to restore; written before the handlers are set.
nonisolated(unsafe) private var savedTerminal = termios()

private let restoreAndReraise: @convention(c) (Int32) -> Void = { number in
    tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    signal(number, SIG_DFL)
    raise(number)
}
