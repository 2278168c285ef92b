import Dispatch
import Logging
import Synchronization
import BlogModel

/// Keeps files that many changes touch (the index of blogs, a blog's feed)
/// up to date without putting them on the request path, and without
/// writing them once per change.
///
/// A change only marks its key (a user id; 0 for the site) dirty, with
/// the value the write needs (the user's record: the latest, unless
/// `merge` says how two waiting values combine); one
/// background queue writes it, at most every `interval` seconds per key,
/// so a burst of posts to one blog costs one feed write a second, not one
/// a post.
///
///     let feeds = CoalescedWriter<UserRecord>("feed", logger: logger) { _, user in try writeFeed(user) }
///     feeds.changed(alice.id, alice)   // returns at once; written soon after
final class CoalescedWriter<Value: Sendable>: Sendable {
    private struct State {
        var running: Set<Int64> = []
        var dirty: [Int64: Value] = [:]
    }

    private let queue: DispatchQueue
    private let state = Mutex(State())
    private let interval: Double
    private let write: @Sendable (Int64, Value) throws -> Void
    private let merge: @Sendable (Value, Value) -> Value
    private let logger: Logger
    private let what: String

    /// - Parameter merge: the value a write gets for a key changed twice
    ///   before it was written (the waiting value, the new one); the new
    ///   one by default.
    init(_ what: String, interval: Double = 1, logger: Logger,
         merge: @escaping @Sendable (Value, Value) -> Value = { $1 },
         write: @escaping @Sendable (Int64, Value) throws -> Void) {
        self.what = what
        self.interval = interval
        self.logger = logger
        self.merge = merge
        self.write = write
        queue = DispatchQueue(label: "blogd.\(what)")
    }

    /// Something `key`'s file shows changed.
    func changed(_ key: Int64, _ value: Value) {
        let start = state.withLock { state in
            state.dirty[key] = state.dirty[key].map { merge($0, value) } ?? value
            return state.running.insert(key).inserted
        }
        if start { queue.async { self.run(key) } }
    }

    /// Waits for the writes under way to finish, without writing.
    func settle() {
        queue.sync {}
    }

    /// Writes every dirty key now (a stop, a test) and returns when they
    /// are on disk.
    func flushAll() {
        queue.sync {
            for key in state.withLock({ Array($0.dirty.keys) }) { writeNow(key) }
        }
    }

    /// Writes `key`'s file now with `value` and returns when it is on disk.
    func flush(_ key: Int64, _ value: Value) {
        queue.sync {
            state.withLock { state in state.dirty[key] = state.dirty[key].map { merge($0, value) } ?? value }
            writeNow(key)
        }
    }

    private func run(_ key: Int64) {
        // A flush in between may have written it already.
        writeNow(key)
        // The key stays running for `interval` after a write, changed or
        // not: a blog posted to every 70 ms would otherwise find it idle
        // after each write and be written once a post.
        queue.asyncAfter(deadline: .now() + interval) { self.cooled(key) }
    }

    private func cooled(_ key: Int64) {
        let again = state.withLock { state in
            let dirty = state.dirty[key] != nil
            if !dirty { state.running.remove(key) }
            return dirty
        }
        if again { run(key) }
    }

    /// Writes `key` if it is dirty.
    private func writeNow(_ key: Int64) {
        guard let value = state.withLock({ $0.dirty.removeValue(forKey: key) }) else { return }
        do { try write(key, value) } catch {
            logger.error("\(what) not written", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }
}
