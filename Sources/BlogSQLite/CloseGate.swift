import BlogModel
#if canImport(Glibc)
import Glibc
#endif

/// Lets any number of callers use the database at once until it is closed;
/// closing waits for those inside to leave, and later callers get an error.
///
/// GRDB treats use after `close()` as a programming error (it crashes), and
/// background work such as the index writer may still be running when the
/// owner closes the store: the gate turns that race into an error.
final class CloseGate: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    /// Written only under the write lock, read under the read lock.
    private var closed = false

    init() {
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` unless the gate is closed.
    func pass<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard !closed else { throw .closed }
        return try body()
    }

    /// Waits for everyone inside to leave, runs `body` once, and shuts the
    /// gate for good. Returns false when it was closed already.
    func close(_ body: () throws(StorageError) -> Void) throws(StorageError) -> Bool {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard !closed else { return false }
        closed = true
        try body()
        return true
    }
}
