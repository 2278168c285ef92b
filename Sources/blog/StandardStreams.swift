#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to stderr and whole reads of a file descriptor,
/// without stdio's shared `FILE` globals.
enum StandardStreams {
    /// Writes `text` to standard error at once.
    static func error(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Every byte until the end of `fd`, or the errno of a failed read.
    static func readAll(_ fd: Int32) -> Result<[UInt8], Errno> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes += chunk[0..<n]
            } else if n == 0 {
                return .success(bytes)
            } else if errno != EINTR {
                return .failure(Errno(code: errno))
            }
        }
    }

    /// An errno as an error, with the system's text for it.
    struct Errno: Error, CustomStringConvertible {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }
}
