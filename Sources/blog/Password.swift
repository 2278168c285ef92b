import ArgumentParser
import TerminalInput
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
        guard let line = SilentLine.read(prompt: "\(purpose) for \(name): ") else {
            throw Exit.fail("no password given", Exit.usage)
        }
        return line
    }
}
