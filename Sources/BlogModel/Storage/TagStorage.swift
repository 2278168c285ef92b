/// Tags: which posts carry a tag, for the tag pages and their feeds.
///
/// A post's tags (`PostRecord.tags`: its text's hashtags and its
/// categories) are written by `PostStorage` in the transaction that
/// stores, edits, trashes, restores or deletes the post, so a tag never
/// names a post it is not on, nor misses one it is.
public protocol TagStorage: Sendable {
    /// The posts tagged `tag` (as stored: `Hashtags.normalized`), of
    /// `userID` or of every blog when nil, whose id is below `before` (or
    /// any), newest first, at most `limit`, with their authors: one range
    /// of an index, however many posts carry the tag.
    func taggedPosts(_ tag: String, ofUserID userID: Int64?, before: Int64?,
                     limit: Int) throws(StorageError) -> [AuthoredPost]

    /// The tags on `userID`'s posts that begin with `prefix` (any when
    /// empty), each once, in order, at most `limit`: along
    /// `post_tags_by_blog`, a step a tag.
    func tags(ofUserID userID: Int64, prefix: String, limit: Int) throws(StorageError) -> [String]
}
