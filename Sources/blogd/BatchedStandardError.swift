import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Standard error, written in batches by a thread of its own, bounded.
///
/// The audit log has a line per request; written one `write(2)` each, on
/// the event loop's thread, it cost the cheap path a system call and the
/// loop's time per request. Lines are appended here instead and written
/// together within `interval` seconds, in order. A SIGKILL may lose the
/// last `interval` of lines, never a database write.
///
/// Nothing here may hold the server up: a stderr nobody reads (a full
/// pipe) or a slow disk would otherwise grow the waiting lines without
/// bound (1.9 GB in 10 s of pipelined requests was seen) and block the
/// stop. So at most `capacity` bytes wait; past it, lines are dropped and
/// counted, and a `blogd: N log lines dropped` line says so once writing
/// catches up. Writes wait for the descriptor with `poll` and a deadline,
/// and never write more than a pipe takes at once without blocking.
final class BatchedStandardError: Sendable {
    static let shared = BatchedStandardError(interval: 0.01)

    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
    }

    /// Bytes that may wait to be written.
    let capacity: Int
    private let pending = Mutex(Pending())
    private let wake = DispatchSemaphore(value: 0)
    private let writing = Mutex(())
    private let interval: Double
    private let fd: Int32
    private let finished = Atomic<Bool>(false)

    init(interval: Double, capacity: Int = 4 << 20, fd: Int32 = STDERR_FILENO) {
        self.interval = interval
        self.capacity = capacity
        self.fd = fd
        let thread = Thread { [self] in
            while true {
                wake.wait()
                // Let the lines of a burst gather into one write.
                usleep(UInt32(interval * 1_000_000))
                // A reader that stalls holds this thread a second at a
                // time, not the server; what it did not take waits again.
                if !flush(within: 1) { wake.signal() }
            }
        }
        thread.name = "blogd.log"
        thread.start()
    }

    /// A stream for `StreamLogHandler`.
    var stream: Stream { Stream(sink: self) }

    /// The last flush at exit: after it, lines are dropped and nothing
    /// waits any more (an `atexit` flush after a full pipe would wait again).
    func finish(within seconds: Double = 0.5) {
        flush(within: seconds)
        finished.store(true, ordering: .relaxed)
    }

    /// Lines dropped so far because too many were waiting.
    var droppedLines: Int { pending.withLock { $0.dropped } }

    func append(_ text: String) {
        let first = pending.withLock { pending -> Bool in
            guard pending.bytes.count + text.utf8.count <= capacity else {
                pending.dropped += 1
                return false
            }
            defer { pending.bytes.append(contentsOf: text.utf8) }
            return pending.bytes.isEmpty
        }
        if first { wake.signal() }
    }

    /// Writes every line appended so far, giving up after `seconds` if the
    /// reader does not take them (at exit: a full pipe must not keep the
    /// process alive); what is left waits again, ahead of newer lines.
    /// Returns whether everything was written.
    @discardableResult
    func flush(within seconds: Double = 1) -> Bool {
        let deadline = DispatchTime.now() + (finished.load(ordering: .relaxed) ? 0 : seconds)
        // One writer at a time keeps the lines in order; none holds this
        // longer than its deadline.
        return writing.withLock { _ in
            var (bytes, dropped) = pending.withLock { pending in
                defer {
                    pending.bytes.removeAll(keepingCapacity: pending.bytes.capacity <= 1 << 20)
                    pending.dropped = 0
                }
                return (pending.bytes, pending.dropped)
            }
            if dropped > 0 {
                bytes += Array("blogd: \(dropped) log lines dropped (stderr did not keep up)\n".utf8)
            }
            let written = write(bytes, until: deadline)
            guard written < bytes.count else { return true }
            pending.withLock { pending in
                let room = max(0, capacity - pending.bytes.count)
                let kept = bytes[written...].prefix(room)
                pending.bytes.insert(contentsOf: kept, at: 0)
                if kept.count < bytes.count - written { pending.dropped += 1 }
            }
            return false
        }
    }

    /// Writes `bytes` until they are out or `deadline` passes; returns how
    /// many were written. A closed or broken stderr ends it at once (and
    /// must not stop the server).
    private func write(_ bytes: [UInt8], until deadline: DispatchTime) -> Int {
        var offset = 0
        while offset < bytes.count {
            let now = DispatchTime.now()
            guard now < deadline else { break }
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: (deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1_000_000 + 1))
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            if entry.revents & Int16(POLLERR | POLLNVAL) != 0 { return bytes.count }
            // At most a pipe's atomic size: poll promises that much room,
            // so the write cannot block.
            let chunk = min(bytes.count - offset, Int(PIPE_BUF))
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, chunk) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { return bytes.count }
            offset += n
        }
        return offset
    }

    struct Stream: TextOutputStream, Sendable {
        let sink: BatchedStandardError

        mutating func write(_ string: String) {
            sink.append(string)
        }
    }
}
