import Foundation

/// The site's Atom feeds: one per blog (its newest posts) and one for the
/// whole site, written as files beside the pages (`alice.atom`,
/// `index.atom`) so that any static server can serve them.
///
/// Feeds need absolute links: `baseURL` is where the public folder is
/// served (`https://blog.example.org/`). Entry ids are tag URIs
/// (RFC 4151) made of the base URL's host, the post's day and its id, so
/// they do not change when the post moves to an archive page.
///
///     let feeds = Feeds(baseURL: "https://blog.example.org/")
///     let bytes = feeds.blog("alice", created: alice.createdAt, posts: newest)
public struct Feeds: Sendable {
    /// Entries a feed holds.
    public static let entryLimit = 20

    /// Ends with `/`.
    public let baseURL: String
    private let authority: String

    public init(baseURL: String) {
        let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.baseURL = base
        authority = URLComponents(string: base)?.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
    }

    /// The feed of `user`'s blog; `created` dates an empty one.
    public func blog(_ user: String, created: Date, posts: [PostRecord]) -> [UInt8] {
        AtomFeed.render(id: baseURL + PageRenderer.feedFile(user: user), title: "\(user) – blog",
                        selfURL: baseURL + PageRenderer.feedFile(user: user),
                        alternateURL: baseURL + PageRenderer.mainFile(user: user),
                        updated: posts.map { $0.updatedAt ?? $0.createdAt }.max() ?? created,
                        entries: posts.map { entry($0, author: user) })
    }

    /// The site's feed: the newest posts of every blog.
    public func site(_ posts: [AuthoredPost]) -> [UInt8] {
        AtomFeed.render(id: baseURL + PageRenderer.siteFeedFile, title: "All blogs",
                        selfURL: baseURL + PageRenderer.siteFeedFile, alternateURL: baseURL + IndexPage.fileName,
                        updated: posts.map { $0.post.updatedAt ?? $0.post.createdAt }.max() ?? Date(timeIntervalSince1970: 0),
                        entries: posts.map { entry($0.post, author: $0.author) })
    }

    private func entry(_ post: PostRecord, author: String) -> AtomFeed.Entry {
        AtomFeed.Entry(id: "tag:\(authority),\(PostDate.day(post.createdAt)):post-\(post.id)", title: post.title, author: author,
                              link: baseURL + PageRenderer.postFile(user: author, id: post.id), content: post.content,
                              published: post.createdAt, updated: post.updatedAt ?? post.createdAt, place: post.place,
                              photos: post.photos, siteURL: baseURL)
    }
}
