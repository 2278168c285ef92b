import Foundation
import BlogModel

extension ForwardingStorage {
    func queueWebmentions(with links: MentionLinks) { store.queueWebmentions(with: links) }
    func holdWebmentions(ofUserID userID: Int64) { store.holdWebmentions(ofUserID: userID) }
    func releaseWebmentions(ofUserID userID: Int64) { store.releaseWebmentions(ofUserID: userID) }
    func claimWebmentions(dueBy date: Date, lease: TimeInterval, limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        try store.claimWebmentions(dueBy: date, lease: lease, limit: limit)
    }
    func finishWebmention(_ mention: OutgoingWebmention) throws(StorageError) { try store.finishWebmention(mention) }
    func retryWebmention(_ mention: OutgoingWebmention, at date: Date) throws(StorageError) {
        try store.retryWebmention(mention, at: date)
    }
    func queuedWebmentions(limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        try store.queuedWebmentions(limit: limit)
    }
}
