import Dispatch
import Synchronization
import BlogModel

/// Writes a user's pages after commits, one write per user at a time, and
/// lets every request that waits for the same user share it: when several
/// posts of one user are committed together, their page is written once,
/// by whichever request gets there first, rendered from the database as
/// it is then (which holds all of them).
package final class PageWriter: Sendable {
    private struct UserState {
        /// The newest post id the pages on disk show, once written.
        var shown: Int64 = -1
        var writing = false
        var waiters: [DispatchSemaphore] = []
    }

    package let pages: UserPages
    private let states = Mutex<[Int64: UserState]>([:])
    private let writes = Atomic<Int>(0)

    /// Page writes so far (a user's pages written once counts one).
    package var writeCount: Int { writes.load(ordering: .relaxed) }

    package init(pages: UserPages) {
        self.pages = pages
    }

    private enum Claim {
        /// The pages already show the post.
        case done
        /// Another request is writing them: wait, then look again.
        case wait(DispatchSemaphore)
        /// This request writes them; the pages showed posts up to `shown`
        /// before (nil: not known).
        case write(shown: Int64?)
    }

    /// Returns once the pages of `user` show every post up to `postID`
    /// (a committed one), writing them if no other request is about to.
    ///
    package func ensure(_ user: UserRecord, showing postID: Int64) throws {
        try write(user, unlessShowing: postID)
    }

    /// Writes the pages of `user` now (a new user's empty page, say).
    package func write(_ user: UserRecord) throws {
        try write(user, unlessShowing: nil)
    }

    private func write(_ user: UserRecord, unlessShowing postID: Int64?) throws {
        let userID = user.id
        while true {
            switch claim(userID, unlessShowing: postID) {
            case .done: return
            case .wait(let semaphore):
                // Within the request's deadline: the writer ahead may be
                // stuck on a database that went away.
                guard RequestDeadline.end != nil else {
                    semaphore.wait()
                    continue
                }
                let left = RequestDeadline.seconds(upTo: .infinity)
                if semaphore.wait(timeout: .now() + left) == .timedOut {
                    // No storage call saw this one: counted here.
                    let error = StorageError.deadlineExceeded(seconds: left)
                    StorageMetrics.shared.record(error)
                    throw error
                }
            case .write(let shown): return try writeClaimed(user, shown: shown)
            }
        }
    }

    private func claim(_ userID: Int64, unlessShowing postID: Int64?) -> Claim {
        states.withLock { states in
            var state = states[userID] ?? UserState()
            defer { states[userID] = state }
            if let postID, state.shown >= postID { return .done }
            guard !state.writing else {
                let semaphore = DispatchSemaphore(value: 0)
                state.waiters.append(semaphore)
                return .wait(semaphore)
            }
            state.writing = true
            return .write(shown: state.shown >= 0 ? state.shown : nil)
        }
    }

    private func writeClaimed(_ user: UserRecord, shown before: Int64?) throws {
        let userID = user.id
        var shown: Int64 = -1
        var failure: (any Error)?
        writes.add(1, ordering: .relaxed)
        do {
            shown = try pages.storage.withPageLock(userID: userID) { try pages.write(user, shown: before) }
        } catch {
            failure = error
            pages.forget(user)
        }
        let waiters = states.withLock { states in
            var state = states[userID] ?? UserState()
            state.writing = false
            if failure == nil { state.shown = max(state.shown, shown) }
            let waiters = state.waiters
            state.waiters = []
            states[userID] = state
            return waiters
        }
        // Each waiter looks again: its post is shown now, or it writes.
        waiters.forEach { $0.signal() }
        if let failure { throw failure }
    }
}
