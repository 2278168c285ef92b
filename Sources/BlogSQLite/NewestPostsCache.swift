import BlogModel
import Synchronization

/// Each recently written blog's newest posts (what `newestPosts` reads:
/// the two newest page groups), kept with the `posts_version` they match.
///
/// Every change to a user's posts adds one to `users.posts_version` in its
/// own transaction, whichever process makes it (the server, an admin
/// command), so a copy is good exactly while its version is the one in
/// the database: the page writer reads one row instead of some fifty.
/// The group commit hands each insert over in commit order, so a copy
/// follows a burst of posts without reading them back.
///
///     let cache = NewestPostsCache(capacity: 2)
///     cache.store([stub], of: 7, version: 3)
///     cache.posts(of: 7, version: 3)     // [stub]
///     cache.posts(of: 7, version: 4)     // nil: changed since
final class NewestPostsCache: Sendable {
    private struct Entry {
        var version: Int64
        var posts: [PostStub]
    }

    private let entries: Mutex<LRUCache<Int64, Entry>>

    /// Keeps the copies of at most `capacity` blogs (the most recently
    /// written), about 4 KB each with full pages.
    init(capacity: Int = 1_000) {
        entries = Mutex(LRUCache(capacity: capacity))
    }

    /// The newest posts of `userID` if the copy is of `version`.
    func posts(of userID: Int64, version: Int64) -> [PostStub]? {
        entries.withLock { entries in
            guard let entry = entries[userID], entry.version == version else { return nil }
            return entry.posts
        }
    }

    /// Keeps `posts`, read from the database in one snapshot with `version`.
    func store(_ posts: [PostStub], of userID: Int64, version: Int64) {
        entries.withLock { $0[userID] = Entry(version: version, posts: posts) }
    }

    /// Adds a committed insert that made the version `version`: the copy
    /// follows it if it was of the version before; otherwise (an insert
    /// it never saw, or none kept) it is dropped, to be read again.
    func inserted(_ post: PostStub, of userID: Int64, version: Int64) {
        entries.withLock { entries in
            guard let entry = entries[userID] else { return }
            guard entry.version == version - 1 else {
                entries[userID] = nil
                return
            }
            entries[userID] = Entry(version: version, posts: Self.newest(adding: post, to: entry.posts))
        }
    }

    /// Drops the copy of a deleted user's blog: a user made later may get
    /// the same id.
    func forget(_ userID: Int64) {
        entries.withLock { $0[userID] = nil }
    }

    /// Blogs with a copy kept.
    var count: Int { entries.withLock { $0.count } }

    /// `posts` (newest first) with `post` (newer than all, in a group at
    /// least as new) in front, cut to the two newest groups as the
    /// database query reads them.
    static func newest(adding post: PostStub, to posts: [PostStub]) -> [PostStub] {
        var all = [post]
        all.reserveCapacity(posts.count + 1)
        all.append(contentsOf: posts)
        guard let second = all.first(where: { $0.page < post.page })?.page else { return all }
        return Array(all.prefix { $0.page >= second })
    }
}
