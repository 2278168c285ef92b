import Foundation

/// Lets calls into a store run until it is closed; `close` waits for the
/// calls inside to finish, and later calls fail with `.closed`, so that
/// closing never pulls the database from under a query (GRDB treats use
/// after `close()` as a programming error and crashes; PostgresNIO's pool
/// would fail its queries). Both backends use it.
///
///     try gate.pass { () throws(StorageError) in try write(work) }
///
/// Unlike a read-write lock, a call may enter again from inside another
/// (the page lock's body reads posts) without any risk of deadlock: a
/// closing gate refuses it instead of making it wait.
public final class StoreGate: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var inside = 0
    private var closed = false

    public init() {}

    /// Runs `body` unless the gate is closed.
    public func pass<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try enter()
        defer { leave() }
        return try body()
    }

    /// Comes in, unless the gate is closed; every `enter` needs a `leave`.
    public func enter() throws(StorageError) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { throw .closed }
        inside += 1
    }

    public func leave() {
        condition.lock()
        inside -= 1
        if inside == 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Shuts the gate, waits until no call is inside, and runs `body` once.
    /// Returns false when it was closed already.
    public func close(_ body: () throws(StorageError) -> Void) throws(StorageError) -> Bool {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return false
        }
        closed = true
        while inside > 0 { condition.wait() }
        condition.unlock()
        try body()
        return true
    }
}
