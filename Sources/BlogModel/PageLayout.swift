import Foundation

/// A run of a user's posts that share a page: the `page` column of posts.
public struct PageGroup: Sendable, Equatable {
    /// The group's number, from 1 (the oldest).
    public var page: Int
    public var count: Int
    /// The posts' weight (`PageRenderer.weight`), summed.
    public var weight: Int

    public init(page: Int, count: Int, weight: Int) {
        self.page = page
        self.count = count
        self.weight = weight
    }
}

/// A post as the layout sees it: which group it is in, and its weight;
/// and when it was last edited, which tells a cached rendering of it
/// current from stale.
public struct PostStub: Sendable, Equatable {
    public var id: Int64
    public var page: Int
    public var weight: Int
    public var updatedAt: Date?

    public init(id: Int64, page: Int, weight: Int, updatedAt: Date? = nil) {
        self.id = id
        self.page = page
        self.weight = weight
        self.updatedAt = updatedAt
    }
}

extension PageGroup {
    /// The groups of `posts` (of one user, newest group first), newest first.
    public static func of(_ posts: [PostStub]) -> [PageGroup] {
        var groups: [PageGroup] = []
        for post in posts {
            if groups.last?.page != post.page { groups.append(PageGroup(page: post.page, count: 0, weight: 0)) }
            groups[groups.count - 1].count += 1
            groups[groups.count - 1].weight += post.weight
        }
        return groups
    }
}

/// Which posts go on a user's main page and which on archive pages.
///
/// A user's posts fall into groups, oldest first: a group takes posts
/// until it holds `pageSize` of them, or until the next post would take
/// its weight past `pageBytes` (a group always takes its first post). Each
/// post's group is stored with it when it is committed, so the layout is
/// a fact of the database, not recomputed from the whole history.
///
/// The main page shows the open group (the last one, unless it is full)
/// and the last closed group before it, as long as the two weigh at most
/// `pageBytes` together; every older group is an archive page, written
/// once when it leaves the main page. So the main page holds at most
/// `2 * pageSize - 1` posts and, but for one oversized post, `pageBytes`
/// of text: a post costs the same however many, and however large, the
/// posts before it.
public struct PageLayout: Sendable, Equatable {
    public let pageSize: Int
    public let pageBytes: Int
    /// What a post weighs: its markup, which only the pages know
    /// (`PostWeigher.markup` in BlogPages, the default there).
    public let weigher: PostWeigher

    public init(pageSize: Int, pageBytes: Int = Self.defaultPageBytes, weigher: PostWeigher) {
        precondition(pageSize >= 1 && pageBytes >= 1)
        self.pageSize = pageSize
        self.pageBytes = pageBytes
        self.weigher = weigher
    }

    public static func == (a: PageLayout, b: PageLayout) -> Bool {
        a.pageSize == b.pageSize && a.pageBytes == b.pageBytes
    }

    /// 256 KiB of escaped text.
    public static let defaultPageBytes = 256 * 1024

    /// What the main page shows.
    public struct Plan: Sendable, Equatable {
        /// The groups on the main page, oldest first; empty without posts.
        public var mainPages: ClosedRange<Int>?
        /// The newest archive page (0: none); archives are 1...newestArchive.
        public var newestArchive: Int

        public init(mainPages: ClosedRange<Int>?, newestArchive: Int) {
            self.mainPages = mainPages
            self.newestArchive = newestArchive
        }
    }

    /// The group a new post of `weight` joins, after `last` (the user's
    /// newest group, nil without posts).
    public func page(forWeight weight: Int, after last: PageGroup?) -> Int {
        guard let last else { return 1 }
        if last.count >= pageSize || (last.count > 0 && last.weight + weight > pageBytes) { return last.page + 1 }
        return last.page
    }

    /// The plan for a user whose newest groups are `last` and, before it,
    /// `previous` (nil when there is none).
    public func plan(last: PageGroup?, previous: PageGroup?) -> Plan {
        guard let last, last.count > 0 else { return Plan(mainPages: nil, newestArchive: 0) }
        // The open group, and the last closed one before it.
        let openIsEmpty = last.count >= pageSize
        let openWeight = openIsEmpty ? 0 : last.weight
        let closed = openIsEmpty ? last : previous
        let first: Int
        if let closed, openIsEmpty || closed.weight + openWeight <= pageBytes {
            first = closed.page
        } else {
            first = last.page
        }
        return Plan(mainPages: first...last.page, newestArchive: first - 1)
    }

    /// The plan for a user with all of `groups` (oldest first).
    public func plan(groups: [PageGroup]) -> Plan {
        plan(last: groups.last, previous: groups.count >= 2 ? groups[groups.count - 2] : nil)
    }
}

/// What a post weighs on a page, in bytes of markup: the layout's unit.
/// The model groups posts by it but cannot render, so the rule comes from
/// the pages (`PostWeigher.markup`), and storage applies it to the photos
/// it reads inside its transaction.
public struct PostWeigher: Sendable {
    /// The weight of a post's title and text.
    public var text: @Sendable (_ title: String, _ content: String) -> Int
    /// The weight of a post's photos.
    public var photos: @Sendable ([PostPhoto]) -> Int

    public init(text: @escaping @Sendable (_ title: String, _ content: String) -> Int,
                photos: @escaping @Sendable ([PostPhoto]) -> Int) {
        self.text = text
        self.photos = photos
    }

    /// Raw bytes, no photos: only for a store opened without a layout
    /// (tools, tests), where it can regroup the posts of a database older
    /// than page groups. blogd always passes the pages' rule.
    public static let rawBytes = PostWeigher(text: { $0.utf8.count + $1.utf8.count }, photos: { _ in 0 })
}
