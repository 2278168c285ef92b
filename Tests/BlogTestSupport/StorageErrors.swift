import BlogCore
import BlogModel

/// The storage error `body` throws, or nil when it throws none; any other
/// error comes back as `.failed` naming it, so that no expectation of a
/// storage error can pass on it.
///
///     #expect(storageError { _ = try store.createUser(name: "ALICE", passwordHash: "h", at: t0) } == .nameTaken)
public func storageError(_ body: () throws -> Void) -> StorageError? {
    do {
        try body()
        return nil
    } catch let error as StorageError {
        return error
    } catch {
        return .failed("not a StorageError: \(error)")
    }
}
