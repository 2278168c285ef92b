import Foundation

extension MeteredStorage {
    public func queueWebmention(userID: Int64, postID: Int64, source: String, target: String,
                                at date: Date) throws(StorageError) -> Webmention {
        try counted(try base.queueWebmention(userID: userID, postID: postID, source: source, target: target, at: date))
    }
    public func dueWebmentions(at date: Date, limit: Int) throws(StorageError) -> [Webmention] {
        try counted(try base.dueWebmentions(at: date, limit: limit))
    }
    public func storeVerification(id: Int64, content: WebmentionContent, at date: Date) throws(StorageError) -> Webmention? {
        try counted(try base.storeVerification(id: id, content: content, at: date))
    }
    public func deferVerification(id: Int64, attempts: Int, retryAt: Date) throws(StorageError) {
        try counted(try base.deferVerification(id: id, attempts: attempts, retryAt: retryAt))
    }
    public func approveWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try counted(try base.approveWebmention(id: id, ofUserID: userID))
    }
    public func deleteWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try counted(try base.deleteWebmention(id: id, ofUserID: userID))
    }
    public func webmention(id: Int64) throws(StorageError) -> Webmention? {
        try counted(try base.webmention(id: id))
    }
    public func webmentions(ofUserID userID: Int64?, approved: Bool?, limit: Int) throws(StorageError) -> [Webmention] {
        try counted(try base.webmentions(ofUserID: userID, approved: approved, limit: limit))
    }
    public func shownWebmentions(postID: Int64, offset: Int, limit: Int) throws(StorageError) -> [Webmention] {
        try counted(try base.shownWebmentions(postID: postID, offset: offset, limit: limit))
    }
    public func shownWebmentionCounts(postID: Int64) throws(StorageError) -> [Webmention.Kind: Int] {
        try counted(try base.shownWebmentionCounts(postID: postID))
    }
    public func unapprovedWebmentionCount(ofUserID userID: Int64) throws(StorageError) -> Int {
        try counted(try base.unapprovedWebmentionCount(ofUserID: userID))
    }
    public func postIDsWithShownWebmentions(ofUserID userID: Int64) throws(StorageError) -> Set<Int64> {
        try counted(try base.postIDsWithShownWebmentions(ofUserID: userID))
    }
}
