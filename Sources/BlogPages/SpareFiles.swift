import Synchronization

/// Files of old pages, swapped out of place by `PublicFolder.write`, kept to
/// be written over instead of deleted: a page write then neither creates
/// nor deletes an inode. They live in the staging folder, outside the
/// public one (`StagingFolder`), are deleted whenever a post or a user
/// leaves the pages, and at the stop.
final class SpareFiles: Sendable {
    /// Spares kept at most; past it, an old page is deleted.
    static let limit = 32

    private let paths = Mutex<[String]>([])

    func take() -> String? {
        paths.withLock { $0.popLast() }
    }

    /// Keeps `path`; false when full (the caller deletes it).
    func give(_ path: String) -> Bool {
        paths.withLock { paths in
            guard paths.count < Self.limit else { return false }
            paths.append(path)
            return true
        }
    }

    /// Every spare, forgotten.
    func drain() -> [String] {
        paths.withLock { paths in
            defer { paths = [] }
            return paths
        }
    }
}
