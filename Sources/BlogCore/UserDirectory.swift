import BlogWire
import Synchronization
import BlogModel

/// Users by name, remembered once found: a user's record never changes, so
/// every post and login after the first skips the database lookup. A name
/// not found is asked again each time, so a registration is seen at once.
///
/// Bounded: past `capacity` names the least recently used is forgotten.
final class UserDirectory: Sendable {
    let storage: any UserStorage
    let capacity: Int
    private let users: Mutex<LRUCache<String, UserRecord>>

    init(storage: any UserStorage, capacity: Int = 10_000) {
        self.storage = storage
        self.capacity = capacity
        users = Mutex(LRUCache(capacity: max(1, capacity)))
    }

    /// Names remembered (for tests).
    var count: Int { users.withLock { $0.count } }

    /// The user of that name (any case), or nil.
    func user(named name: Username) throws(StorageError) -> UserRecord? {
        if let known = users.withLock({ $0[name.key] }) { return known }
        guard let found = try storage.user(named: name.value) else { return nil }
        users.withLock { $0[name.key] = found }
        return found
    }

    /// Forgets a user taken back (a registration whose page failed).
    func forget(_ name: String) {
        users.withLock { $0[name.lowercased()] = nil }
    }
}
