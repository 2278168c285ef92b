import BlogWire
import Foundation

/// A row of `users`.
public struct UserRecord: Codable, Sendable, Equatable {
    public var id: Int64
    /// The name in the case given at registration.
    public var name: String
    public var passwordHash: String
    public var createdAt: Date
    /// Suspended by the admin: no logins, posts or edits; the blog stays
    /// readable.
    public var suspended: Bool

    public init(id: Int64, name: String, passwordHash: String, createdAt: Date, suspended: Bool = false) {
        self.id = id
        self.name = name
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.suspended = suspended
    }

    enum CodingKeys: String, CodingKey {
        case id, name, suspended
        case passwordHash = "password_hash"
        case createdAt = "created_at"
    }
}

/// A row of `posts`.
public struct PostRecord: Codable, Sendable, Equatable {
    public var id: Int64
    public var userID: Int64
    public var title: String
    public var content: String
    public var createdAt: Date
    /// The page group the post belongs to (`PageLayout`), from 1.
    public var page: Int
    /// What it weighs on a page: its text and its photos' markup
    /// (`PageRenderer.weight`).
    public var weight: Int
    /// When its author last edited it; nil if never.
    public var updatedAt: Date?
    /// Where it was written, if the author said (`geopost`).
    public var place: Place? = nil
    /// Its photos, in the order the author gave them (an edit may change
    /// them).
    public var photos: [PostPhoto] = []
    /// The HTML its text was derived from, as a Micropub client sent it
    /// (`{"html": …}`); nil for plain text. Never rendered: the pages show
    /// `content`, escaped. Kept so that `q=source` gives back what was sent.
    public var contentHTML: String? = nil
    /// The tags given beside its text (Micropub `category`, the web form's
    /// tags field), normalized (`Hashtags.normalized`); its text's
    /// hashtags are its tags too (`tags`).
    public var categories: [String] = []

    public init(id: Int64, userID: Int64, title: String, content: String, createdAt: Date,
                page: Int = 1, weight: Int, updatedAt: Date? = nil, place: Place? = nil,
                photos: [PostPhoto] = [], contentHTML: String? = nil, categories: [String] = []) {
        self.id = id
        self.userID = userID
        self.title = title
        self.content = content
        self.createdAt = createdAt
        self.page = page
        self.weight = weight
        self.updatedAt = updatedAt
        self.place = place
        self.photos = photos
        self.contentHTML = contentHTML
        self.categories = categories
    }

    /// Every tag of the post: its text's hashtags, then its categories
    /// (`Hashtags.tags(content:categories:)`).
    public var tags: [String] { Hashtags.tags(content: content, categories: categories) }

    /// The post as the layout sees it.
    public var stub: PostStub { PostStub(id: id, page: page, weight: weight, updatedAt: updatedAt) }

    enum CodingKeys: String, CodingKey {
        case id, title, content, page, weight
        case userID = "user_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case contentHTML = "content_html"
    }
}

/// A row of `access_tokens`: what a web session (its cookie) or a bearer
/// token (Micropub) stands for. The secret itself is never stored, only
/// its SHA-256, so a copy of the database lets nobody in.
public struct AccessToken: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case session, bearer
    }

    public var id: Int64
    public var userID: Int64
    public var kind: Kind
    /// Space-separated scopes ("create update delete media"); empty for a session.
    public var scopes: String
    /// Shown to the user: the app or client id it was made for.
    public var label: String
    public var createdAt: Date
    /// nil: until revoked.
    public var expiresAt: Date?

    public init(id: Int64, userID: Int64, kind: Kind, scopes: String, label: String, createdAt: Date, expiresAt: Date?) {
        self.id = id
        self.userID = userID
        self.kind = kind
        self.scopes = scopes
        self.label = label
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A post with its author's name (the site feed).
public struct AuthoredPost: Sendable, Equatable {
    public var post: PostRecord
    public var author: String

    public init(post: PostRecord, author: String) {
        self.post = post
        self.author = author
    }
}

/// One line of a user's list of posts (`posts:NAME`).
public struct PostHeading: Sendable, Equatable {
    public var id: Int64
    public var title: String
    public var createdAt: Date

    public init(id: Int64, title: String, createdAt: Date) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
    }
}

/// A post's neighbours in its author's order: the post just before it and
/// the one just after (what its own page links to).
public struct AdjacentPosts: Sendable, Equatable {
    public var older: PostStub?
    public var newer: PostStub?

    public init(older: PostStub?, newer: PostStub?) {
        self.older = older
        self.newer = newer
    }
}

/// One line of the admin listing of users.
public struct UserSummary: Codable, Sendable, Equatable {
    public var name: String
    public var registeredAt: Date
    public var postCount: Int
    public var lastPostAt: Date?
    public var suspended: Bool

    public init(name: String, registeredAt: Date, postCount: Int, lastPostAt: Date?, suspended: Bool = false) {
        self.name = name
        self.registeredAt = registeredAt
        self.postCount = postCount
        self.lastPostAt = lastPostAt
        self.suspended = suspended
    }

    enum CodingKeys: String, CodingKey {
        case name, suspended
        case registeredAt = "registered_at"
        case postCount = "posts"
        case lastPostAt = "last_post_at"
    }
}

extension Date {
    /// This moment to the whole millisecond, rounded down: what both
    /// databases keep. A page rendered from the time at hand must show
    /// what a rebuild from the stored time shows (`:43Z` from 43.9996 s,
    /// while SQLite had rounded it to 44.000, made the start-up check
    /// rewrite the page).
    public var wholeMilliseconds: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
