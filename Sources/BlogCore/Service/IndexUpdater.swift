import Dispatch
import Logging
import Synchronization

/// Keeps `index.html` up to date without putting it on the request path.
///
/// A change only marks the index dirty; one background writer rewrites it,
/// at most every `interval` seconds, so a burst of posts costs one rewrite,
/// not one each.
final class IndexUpdater: Sendable {
    private struct State {
        var running = false
        var dirty = false
    }

    private let queue = DispatchQueue(label: "blogd.index")
    private let state = Mutex(State())
    private let interval: Double
    private let write: @Sendable () throws -> Void
    private let logger: Logger

    init(interval: Double = 1, logger: Logger, write: @escaping @Sendable () throws -> Void) {
        self.interval = interval
        self.logger = logger
        self.write = write
    }

    /// Something the index shows changed.
    func changed() {
        let start = state.withLock { state in
            state.dirty = true
            defer { state.running = true }
            return !state.running
        }
        if start { queue.async { self.run() } }
    }

    /// Waits for a write under way to finish, without writing.
    func settle() {
        queue.sync {}
    }

    /// Writes the index now and returns when it is on disk.
    func flush() {
        queue.sync { writeNow() }
    }

    private func run() {
        // A flush in between may have written it already.
        if state.withLock({ $0.dirty }) { writeNow() }
        let again = state.withLock { state in
            if !state.dirty { state.running = false }
            return state.dirty
        }
        if again { queue.asyncAfter(deadline: .now() + interval) { self.run() } }
    }

    private func writeNow() {
        state.withLock { $0.dirty = false }
        do { try write() } catch {
            logger.error("index not written", metadata: ["error": "\(error)"])
        }
    }
}
