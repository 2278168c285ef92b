import Foundation

/// A post as the sitemap lists it: its page (its author's name and its
/// id) and when it last changed.
public struct SitemapPost: Sendable, Equatable {
    public var id: Int64
    /// The author's name, in the case given at registration.
    public var user: String
    /// Its last edit, or when it was written.
    public var modified: Date

    public init(id: Int64, user: String, modified: Date) {
        self.id = id
        self.user = user
        self.modified = modified
    }
}

/// What `sitemap.xml` lists of the site's posts, read in batches so that
/// a site of any size is listed in bounded memory per read.
public protocol SitemapStorage: Sendable {
    /// The posts on the pages (not those in the trash) with ids after
    /// `id`, by id, at most `limit`.
    func sitemapPosts(after id: Int64, limit: Int) throws(StorageError) -> [SitemapPost]
}
