import Foundation

/// The outbox's calls, counted like the others.
extension MeteredStorage {
    public func queueWebmentions(with links: MentionLinks) { base.queueWebmentions(with: links) }
    public func holdWebmentions(ofUserID userID: Int64) { base.holdWebmentions(ofUserID: userID) }
    public func releaseWebmentions(ofUserID userID: Int64) { base.releaseWebmentions(ofUserID: userID) }
    public func claimWebmentions(dueBy date: Date, lease: TimeInterval,
                                 limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        try counted(try base.claimWebmentions(dueBy: date, lease: lease, limit: limit))
    }
    public func finishWebmention(_ mention: OutgoingWebmention) throws(StorageError) {
        try counted(try base.finishWebmention(mention))
    }
    public func retryWebmention(_ mention: OutgoingWebmention, at date: Date) throws(StorageError) {
        try counted(try base.retryWebmention(mention, at: date))
    }
    public func queuedWebmentions(limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        try counted(try base.queuedWebmentions(limit: limit))
    }
}
