import Foundation
import Synchronization
import BlogModel

/// `index.html` kept up to date at the cost of what changed, not of how
/// many blogs it lists.
///
/// The page is `IndexPage.limit` lines, one a blog. Rendering them all
/// and reading them all from the database once a second, for one post,
/// cost about eight times the post itself with a thousand active blogs.
/// So the lines are kept, with the entries they show; after posts only
/// the blogs active since the newest entry kept (less `slack`) are read
/// (`BlogStorage.blogIndex(activeSince:limit:)`), moved to their place,
/// and only lines that changed are rendered. The page is then a copy of
/// lines.
///
/// What readers see is what a full read would show: a blog moves down
/// or appears without posts only by a change that asks for `.all` (a
/// new user, an edit, a deletion, moderation), and a file on disk that is
/// not the one written here last (another process wrote it: an admin
/// command, another instance) makes the next write a full one too.
/// Blogs whose newest posts have the same millisecond may be listed in
/// another order than a full read gives until the next full one.
package final class SiteIndex: Sendable {
    /// What changed since the last write.
    package enum Change: Sendable, Equatable {
        /// Only posts were added: their blogs moved up.
        case posts
        /// Anything else: the index is read whole.
        case all

        /// Two changes waiting together: `.all` wins.
        package static func merged(_ a: Change, _ b: Change) -> Change {
            a == .all || b == .all ? .all : .posts
        }
    }

    private struct State {
        var entries: [BlogEntry] = []
        /// `IndexPage.line` of each entry.
        var lines: [[UInt8]] = []
        /// The page last written (or found on disk as it would be written).
        var written: [UInt8]?
    }

    private let pages: PublicFolder
    private let storage: any PostStorage
    private let head: [UInt8]
    private let slack: TimeInterval
    private let state = Mutex(State())
    private let fullReads = Atomic<Int>(0)
    private let linesRendered = Atomic<Int>(0)

    /// - Parameter slack: how far before the newest post kept a post may
    ///   still be committed (a request's storage deadline, and the clocks
    ///   of other instances): blogs active since then are read again.
    package init(pages: PublicFolder, storage: any PostStorage, head: [UInt8], slack: TimeInterval) {
        self.pages = pages
        self.storage = storage
        self.head = head
        self.slack = slack
    }

    /// Reads of the whole index so far (for tests).
    package var fullReadCount: Int { fullReads.load(ordering: .relaxed) }
    /// Blogs' lines rendered so far (for tests).
    package var linesRenderedCount: Int { linesRendered.load(ordering: .relaxed) }

    /// Writes `index.html` if it changed. Called by one writer at a time
    /// (the index's `CoalescedWriter`, under the page lock of the site).
    package func write(_ change: Change) throws {
        var current = state.withLock { $0 }
        let onDisk = pages.contents(of: IndexPage.fileName)
        if change == .all || current.written == nil || onDisk != current.written {
            let blogs = try storage.blogIndex(limit: IndexPage.limit)
            fullReads.add(1, ordering: .relaxed)
            current.lines = lines(of: blogs, reusing: current)
            current.entries = blogs
        } else {
            let newest = current.entries.lazy.compactMap(\.lastPostAt).max() ?? .distantPast
            let fresh = try storage.blogIndex(activeSince: newest.addingTimeInterval(-slack), limit: IndexPage.limit)
            (current.entries, current.lines) = merged(fresh, into: current)
        }
        let page = IndexPage.render(lines: current.lines, head: head)
        if page != onDisk { try pages.write(page, file: IndexPage.fileName) }
        current.written = page
        state.withLock { $0 = current }
    }

    /// The lines of `blogs`: those of `old` where the entry is the same.
    private func lines(of blogs: [BlogEntry], reusing old: State) -> [[UInt8]] {
        var kept: [String: Int] = [:]
        kept.reserveCapacity(old.entries.count)
        for (index, entry) in old.entries.enumerated() { kept[entry.name] = index }
        return blogs.map { blog in
            if let index = kept[blog.name], old.entries[index] == blog { return old.lines[index] }
            linesRendered.add(1, ordering: .relaxed)
            return IndexPage.line(blog)
        }
    }

    /// `fresh` (newest first) put in place in `old`'s list: each fresh
    /// blog leaves its old place, and the two lists, both newest first,
    /// are merged (a fresh blog first on a tie), cut at `IndexPage.limit`.
    private func merged(_ fresh: [BlogEntry], into old: State) -> ([BlogEntry], [[UInt8]]) {
        let freshLines = lines(of: fresh, reusing: old)
        let names = Set(fresh.map(\.name))
        var entries: [BlogEntry] = []
        var lines: [[UInt8]] = []
        entries.reserveCapacity(IndexPage.limit)
        lines.reserveCapacity(IndexPage.limit)
        var f = 0
        var o = 0
        while entries.count < IndexPage.limit {
            while o < old.entries.count && names.contains(old.entries[o].name) { o += 1 }
            let takeFresh: Bool
            if f < fresh.count && o < old.entries.count {
                takeFresh = Self.isNewer(fresh[f], thanOrAsNew: old.entries[o])
            } else if f < fresh.count {
                takeFresh = true
            } else if o < old.entries.count {
                takeFresh = false
            } else {
                break
            }
            if takeFresh {
                entries.append(fresh[f]); lines.append(freshLines[f]); f += 1
            } else {
                entries.append(old.entries[o]); lines.append(old.lines[o]); o += 1
            }
        }
        return (entries, lines)
    }

    /// Whether `a` comes before `b`: its newest post is newer or as new
    /// (a blog without posts comes last).
    private static func isNewer(_ a: BlogEntry, thanOrAsNew b: BlogEntry) -> Bool {
        guard let at = a.lastPostAt else { return b.lastPostAt == nil }
        guard let bt = b.lastPostAt else { return true }
        return at >= bt
    }
}
