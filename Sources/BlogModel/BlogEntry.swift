import Foundation

/// One blog on the index page: its newest post (title, time, id) and how
/// many posts it has. The storage keeps these with the user, updated with
/// every post, so listing them costs the same however many users there are.
public struct BlogEntry: Sendable, Equatable, Codable {
    public var name: String
    public var postCount: Int
    public var lastPostID: Int64?
    public var lastPostTitle: String?
    public var lastPostAt: Date?

    public init(name: String, postCount: Int = 0, lastPostID: Int64? = nil, lastPostTitle: String? = nil,
                lastPostAt: Date? = nil) {
        self.name = name
        self.postCount = postCount
        self.lastPostID = lastPostID
        self.lastPostTitle = lastPostTitle
        self.lastPostAt = lastPostAt
    }
}
