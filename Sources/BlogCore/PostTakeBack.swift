import Dispatch
import Foundation
import Logging
import Synchronization
import BlogModel

/// Makes a `post:ERR` true after the fact: takes back, once the database
/// answers again, a post whose failure reply went out while the database
/// may still hold it.
///
/// Two cases send one here: the database went away while the post's commit
/// was under way and the store could not learn in time whether it landed
/// (`StorageError.outcomeUnknown`: the token is claimed, so a commit still
/// under way fails, and a post that did land is deleted); or the post was
/// stored but its page could not be written, and deleting it failed too.
/// Either way the user's pages are rewritten after the delete, so no page
/// keeps showing it. Each job is tried again every `retry` seconds until it
/// succeeds; at most `capacity` wait (a job past it is logged as lost: the
/// start-up page check then shows that post on its page).
///
///     let takeBack = PostTakeBack(storage: store, logger: logger) { owner in try rewrite(owner) }
///     takeBack.add(owner, token: token)
final class PostTakeBack: Sendable {
    struct Job: Sendable {
        var owner: UserRecord
        var token: UUID
        /// Known when the insert committed and only its page failed.
        var postID: Int64?
    }

    private let storage: any PostStorage
    private let logger: Logger
    private let rewrite: @Sendable (UserRecord) throws -> Void
    private let retry: Double
    let capacity: Int
    private let queue = DispatchQueue(label: "blogd.post-take-back")
    private let jobs = Mutex<(waiting: [Job], scheduled: Bool)>(([], false))

    init(storage: any PostStorage, logger: Logger, retry: Double = 1, capacity: Int = 10_000,
         rewrite: @escaping @Sendable (UserRecord) throws -> Void) {
        self.storage = storage
        self.logger = logger
        self.retry = retry
        self.capacity = capacity
        self.rewrite = rewrite
    }

    /// Posts still to be settled.
    var pending: Int { jobs.withLock { $0.waiting.count } }

    func add(_ owner: UserRecord, token: UUID, postID: Int64? = nil) {
        let job = Job(owner: owner, token: token, postID: postID)
        let (added, schedule) = jobs.withLock { jobs -> (Bool, Bool) in
            guard jobs.waiting.count < capacity else { return (false, false) }
            jobs.waiting.append(job)
            defer { jobs.scheduled = true }
            return (true, !jobs.scheduled)
        }
        guard added else {
            logger.error("post not taken back: too many waiting", metadata: ["user": "\(owner.name)"])
            return
        }
        logger.warning("post to be taken back once the database answers", metadata: ["user": "\(owner.name)"])
        if schedule { queue.async { self.settle() } }
    }

    /// Tries every waiting job once; those that fail wait `retry` seconds.
    private func settle() {
        let batch = jobs.withLock { $0.waiting }
        var failed: [Job] = []
        for job in batch where !settle(job) { failed.append(job) }
        let again = jobs.withLock { jobs -> Bool in
            // Jobs added meanwhile stay, after the ones that failed.
            jobs.waiting = failed + jobs.waiting.dropFirst(batch.count)
            jobs.scheduled = !jobs.waiting.isEmpty
            return jobs.scheduled
        }
        guard again else { return }
        if failed.count == batch.count {
            queue.asyncAfter(deadline: .now() + retry) { self.settle() }
        } else {
            queue.async { self.settle() }
        }
    }

    private func settle(_ job: Job) -> Bool {
        do {
            guard let id = try job.postID ?? storage.claimPostToken(job.token) else {
                logger.info("post settled: never stored", metadata: ["user": "\(job.owner.name)"])
                return true
            }
            try storage.deletePost(id: id)
            try rewrite(job.owner)
            logger.info("post taken back", metadata: ["user": "\(job.owner.name)", "post": "\(id)"])
            return true
        } catch {
            return false
        }
    }
}
