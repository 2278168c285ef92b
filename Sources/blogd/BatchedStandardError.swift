import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Standard error, written in batches by a thread of its own.
///
/// The audit log has a line per request; written one `write(2)` each, on
/// the event loop's thread, it cost the cheap path a system call and the
/// loop's time per request. Lines are appended here instead and written
/// together within `interval` seconds, in order. `flush()` writes what is
/// waiting at once (at exit). A SIGKILL may lose the last `interval` of
/// lines, never a database write.
final class BatchedStandardError: Sendable {
    static let shared = BatchedStandardError(interval: 0.01)

    private let pending = Mutex<[UInt8]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let writing = Mutex(())
    private let interval: Double

    private init(interval: Double) {
        self.interval = interval
        let thread = Thread { [self] in
            while true {
                wake.wait()
                // Let the lines of a burst gather into one write.
                usleep(UInt32(interval * 1_000_000))
                flush()
            }
        }
        thread.name = "blogd.log"
        thread.start()
    }

    /// A stream for `StreamLogHandler`.
    var stream: Stream { Stream(sink: self) }

    func append(_ text: String) {
        let first = pending.withLock { bytes in
            defer { bytes.append(contentsOf: text.utf8) }
            return bytes.isEmpty
        }
        if first { wake.signal() }
    }

    /// Writes every line appended so far, and returns when they are out.
    func flush() {
        // One writer at a time keeps the lines in order.
        writing.withLock { _ in
            let bytes = pending.withLock { bytes in
                defer { bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20) }
                return bytes
            }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 && errno == EINTR { continue }
                // A closed or broken stderr must not stop the server.
                guard n > 0 else { break }
                offset += n
            }
        }
    }

    struct Stream: TextOutputStream, Sendable {
        let sink: BatchedStandardError

        mutating func write(_ string: String) {
            sink.append(string)
        }
    }
}
