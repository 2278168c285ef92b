import BlogModel

/// Checking and rebuilding pages from the database, the source of truth.
extension BlogService {
    /// What a check of the pages found.
    public struct PageReport: Sendable, Equatable {
        /// Users whose pages were checked.
        public var checked: Int
        /// Users whose pages were missing, stale or damaged, and rewritten.
        public var rebuilt: [String]
        /// Temporary files of interrupted page writes, removed.
        public var leftovers = 0
        /// Photos whose files no photo in the database accounts for
        /// (a deletion interrupted), removed.
        public var strayPhotos = 0
    }

    /// Why pages could not be rebuilt.
    public enum RepairError: Error, Equatable, Sendable, CustomStringConvertible {
        case unknownUsers([String])
        case failed(user: String, reason: String)

        public var description: String {
            switch self {
            case .unknownUsers(let names): "no such user: \(names.joined(separator: ", "))"
            case .failed(let user, let reason): "cannot rebuild the pages of \(user): \(reason)"
            }
        }
    }

    /// Renders every user's pages from the database, compares them byte
    /// for byte with what is on disk, rewrites those that are missing,
    /// stale or damaged, removes archive pages beyond the newest and the
    /// temporary files a crash left. Photo files missing or cut short are
    /// written again from the database (a user who had any counts as
    /// rebuilt), and those of photos no longer there removed. `blogd serve`
    /// runs this before it accepts connections.
    public func repairPages() throws(RepairError) -> PageReport {
        let users: [UserRecord]
        do { users = try storage.allUsers() } catch { throw .failed(user: "*", reason: "\(error)") }
        var report = PageReport(checked: 0, rebuilt: [])
        // Let a background index write finish, so that its temporary file
        // is not taken for a leftover (the index is written at the end).
        index.settle()
        report.leftovers = pages.removeLeftoverTemporaries()
        for user in users {
            report.checked += 1
            do {
                if try storage.withPageLock(userID: user.id, { try userPages.repair(user) }) {
                    report.rebuilt.append(user.name)
                }
            } catch {
                throw .failed(user: user.name, reason: "\(error)")
            }
        }
        let photos = try restorePhotos(of: users)
        report.rebuilt += photos.restored.filter { !report.rebuilt.contains($0) }
        do {
            report.strayPhotos = try photoFiles.removeStrays(known: photos.known, storage: storage)
        } catch {
            throw .failed(user: "*", reason: "photos: \(error)")
        }
        writeIndex()
        return report
    }

    /// Rewrites the pages of the named users (any case), or of everyone
    /// when `names` is empty, and their photo files that are missing or
    /// cut short. Returns the names as registered.
    public func rebuildPages(of names: [String]) throws(RepairError) -> [String] {
        var users: [UserRecord] = []
        do {
            if names.isEmpty {
                users = try storage.allUsers()
            } else {
                var unknown: [String] = []
                for name in names {
                    if let user = try storage.user(named: name) { users.append(user) } else { unknown.append(name) }
                }
                guard unknown.isEmpty else { throw RepairError.unknownUsers(unknown) }
            }
        } catch let error as RepairError {
            throw error
        } catch {
            throw .failed(user: "*", reason: "\(error)")
        }
        for user in users {
            do { try rebuildPage(of: user) } catch { throw .failed(user: user.name, reason: "\(error)") }
        }
        _ = try restorePhotos(of: users)
        writeIndex()
        return users.map(\.name)
    }
}
