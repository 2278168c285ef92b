import Foundation
import BlogModel
import BlogWire

/// The site's Atom feeds: one per blog (its newest posts) and one for the
/// whole site, written as files beside the pages (`alice.atom`,
/// `index.atom`) so that any static server can serve them.
///
/// Feeds need absolute links: `baseURL` is where the public folder is
/// served (`https://blog.example.org/`). Ids are not links: they must
/// never change, not even when the blog moves (RFC 4287 4.2.6). They are
/// made of `idBase`, the base URL the site had when its ids were first
/// made (kept in the database, see `idBase(storage:baseURL:)`): a feed's
/// id is `idBase` and its file name, an entry's a tag URI (RFC 4151) of
/// `idBase`'s host, the post's day and its id
/// (`tag:blog.example.org,2026-11-27:post-3018`), so it does not change
/// when the post moves to an archive page either.
///
///     let feeds = Feeds(baseURL: "https://blog.example.org/")
///     let bytes = feeds.blog("alice", created: alice.createdAt, posts: newest)
public struct Feeds: Sendable {
    /// Entries a feed holds.
    public static let entryLimit = 20

    /// Ends with `/`.
    public let baseURL: String
    /// What ids are made of; ends with `/`.
    public let idBase: String
    private let authority: String

    /// - Parameter idBase: what ids are made of (nil: `baseURL`).
    public init(baseURL: String, idBase: String? = nil) {
        let base = Self.slashed(baseURL)
        self.baseURL = base
        self.idBase = idBase.map(Self.slashed) ?? base
        authority = URLComponents(string: self.idBase)?.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
    }

    private static func slashed(_ url: String) -> String {
        url.hasSuffix("/") ? url : url + "/"
    }

    /// The key under which the database keeps the id base.
    public static let idBaseKey = "feed_id_base"

    /// The id base for a site served at `baseURL`: the one the database
    /// keeps, or, at the first call (a new site, or one that made its ids
    /// of its base URL before the id base was kept), `baseURL`, stored.
    public static func idBase(storage: any BlogStorage, baseURL: String) throws(StorageError) -> String {
        try storage.siteValue(idBaseKey, storingIfAbsent: slashed(baseURL))
    }

    /// The feed of `user`'s blog; `created` dates an empty one. The blog's
    /// settings give its title, subtitle (the description) and the
    /// entries' author name.
    public func blog(_ user: String, created: Date, posts: [PostRecord], settings: BlogSettings = .unset) -> [UInt8] {
        let author = settings.authorName ?? user
        return AtomFeed.render(id: idBase + PageRenderer.feedFile(user: user), title: settings.title ?? "\(user) – blog",
                               subtitle: settings.description,
                               selfURL: baseURL + PageRenderer.feedFile(user: user),
                               alternateURL: baseURL + PageRenderer.mainFile(user: user),
                               updated: posts.map { $0.updatedAt ?? $0.createdAt }.max() ?? created,
                               entries: posts.map { entry($0, user: user, author: author) })
    }

    /// The site's feed: the newest posts of every blog.
    public func site(_ posts: [AuthoredPost]) -> [UInt8] {
        AtomFeed.render(id: idBase + PageRenderer.siteFeedFile, title: "All blogs",
                        selfURL: baseURL + PageRenderer.siteFeedFile, alternateURL: baseURL + IndexPage.fileName,
                        updated: posts.map { $0.post.updatedAt ?? $0.post.createdAt }.max() ?? Date(timeIntervalSince1970: 0),
                        entries: posts.map { entry($0.post, user: $0.author) })
    }

    /// The feed of a tag's page (`TagPages`): `path` is the feed's own
    /// address (with its query) below the base URL, `pagePath` its page's.
    public func tag(_ tag: String, title: String, path: String, pagePath: String, posts: [AuthoredPost]) -> [UInt8] {
        AtomFeed.render(id: idBase + path, title: title, selfURL: baseURL + path, alternateURL: baseURL + pagePath,
                        updated: posts.map { $0.post.updatedAt ?? $0.post.createdAt }.max() ?? Date(timeIntervalSince1970: 0),
                        entries: posts.map { entry($0.post, user: $0.author) })
    }

    private func entry(_ post: PostRecord, user: String, author: String? = nil) -> AtomFeed.Entry {
        AtomFeed.Entry(id: "tag:\(authority),\(PostDate.day(post.createdAt)):post-\(post.id)", title: post.title,
                              author: author ?? user,
                              link: baseURL + PageRenderer.postFile(user: user, id: post.id), content: post.content,
                              published: post.createdAt, updated: post.updatedAt ?? post.createdAt, place: post.place,
                              photos: post.photos, siteURL: baseURL, categories: post.categories)
    }
}
