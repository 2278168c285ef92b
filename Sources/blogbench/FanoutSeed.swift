import BlogInboxFarm
import BlogModel
import BlogSQLite
import Foundation

/// The followers of `blogbench fanout`'s blogs, written straight into
/// the running server's database through the storage API (a second
/// SQLite connection; WAL lets both write): what the inbox stores for an
/// accepted Follow, without 10,000 Follows, their key fetches and their
/// Accepts, which would measure the inbox rather than the fan-out.
///
/// Follower `i` of a blog lives on host `i % hosts`: actor
/// `http://ADDR:PORT/users/PREFIXi`, its inbox under it, and (`shared`)
/// the host's shared inbox `/inbox`, as Mastodon's actors name theirs.
enum FanoutSeed {
    static func followers(of blog: String, count: Int, on farm: InboxFarm, prefix: String, shared: Bool,
                          database: String) throws(BenchFailure) {
        let store: SQLiteStore
        let found: UserRecord?
        do {
            store = try SQLiteStore(path: database, create: false)
            found = try store.user(named: blog)
        } catch {
            throw BenchFailure(message: "cannot read \(database): \(error)")
        }
        guard let user = found else { throw BenchFailure(message: "no blog \(blog) in \(database)") }
        defer { try? store.close() }
        // Many writers at once, so that the group commit takes them a
        // batch a commit rather than one fsync each.
        let writers = 32
        let failures = Collector<String>()
        let now = Date()
        onThreads(Array(0..<writers), name: "seed") { writer in
            for index in stride(from: writer, to: count, by: writers) {
                let host = farm.hosts[index % farm.hosts.count]
                let name = "\(prefix)\(index)"
                do {
                    _ = try store.addFollower(userID: user.id, actorID: host.actor(name), inbox: host.inbox(name),
                                              sharedInbox: shared ? host.sharedInbox : nil,
                                              followID: host.actor(name) + "/follows/\(blog)", accepted: true, at: now)
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        if let first = failures.all.first {
            throw BenchFailure(message: "\(failures.all.count) followers of \(blog) not stored: \(first)")
        }
    }
}
