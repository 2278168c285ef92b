import Foundation
import BlogModel

extension ForwardingStorage {
    func queueWebmention(userID: Int64, postID: Int64, source: String, target: String,
                         at date: Date) throws(StorageError) -> Webmention {
        try store.queueWebmention(userID: userID, postID: postID, source: source, target: target, at: date)
    }
    func dueWebmentions(at date: Date, limit: Int) throws(StorageError) -> [Webmention] {
        try store.dueWebmentions(at: date, limit: limit)
    }
    func storeVerification(id: Int64, content: WebmentionContent, at date: Date) throws(StorageError) -> Webmention? {
        try store.storeVerification(id: id, content: content, at: date)
    }
    func deferVerification(id: Int64, attempts: Int, retryAt: Date) throws(StorageError) {
        try store.deferVerification(id: id, attempts: attempts, retryAt: retryAt)
    }
    func approveWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try store.approveWebmention(id: id, ofUserID: userID)
    }
    func deleteWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try store.deleteWebmention(id: id, ofUserID: userID)
    }
    func webmention(id: Int64) throws(StorageError) -> Webmention? { try store.webmention(id: id) }
    func webmentions(ofUserID userID: Int64?, approved: Bool?, limit: Int) throws(StorageError) -> [Webmention] {
        try store.webmentions(ofUserID: userID, approved: approved, limit: limit)
    }
    func shownWebmentions(postID: Int64, offset: Int, limit: Int) throws(StorageError) -> [Webmention] {
        try store.shownWebmentions(postID: postID, offset: offset, limit: limit)
    }
    func shownWebmentionCounts(postID: Int64) throws(StorageError) -> [Webmention.Kind: Int] {
        try store.shownWebmentionCounts(postID: postID)
    }
    func unapprovedWebmentionCount(ofUserID userID: Int64) throws(StorageError) -> Int {
        try store.unapprovedWebmentionCount(ofUserID: userID)
    }
    func postIDsWithShownWebmentions(ofUserID userID: Int64) throws(StorageError) -> Set<Int64> {
        try store.postIDsWithShownWebmentions(ofUserID: userID)
    }
}
