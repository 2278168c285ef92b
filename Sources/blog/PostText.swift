import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The text of a post: a file's contents or standard input, as UTF-8.
enum PostText {
    /// Reads `path` (`-` for standard input) or, without a path, standard
    /// input. One final line break is dropped; the others are kept.
    static func read(path: String?) throws(ExitCode) -> String {
        let name: String
        let fd: Int32
        if let path, path != "-" {
            name = path
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw Exit.fail("cannot read \(path): \(StandardStreams.Errno(code: errno))", Exit.usage)
            }
        } else {
            name = "standard input"
            fd = STDIN_FILENO
            if isatty(fd) == 1 {
                StandardStreams.error("Type the post, then Ctrl-D on a line of its own:\n")
            }
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        let bytes: [UInt8]
        switch StandardStreams.readAll(fd) {
        case .success(let read): bytes = read
        case .failure(let error): throw Exit.fail("cannot read \(name): \(error)", Exit.usage)
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            throw Exit.fail("the post text is not valid UTF-8", Exit.usage)
        }
        if text.hasSuffix("\n") { text.removeLast() }  // "\r\n" is one Character
        return text
    }
}
