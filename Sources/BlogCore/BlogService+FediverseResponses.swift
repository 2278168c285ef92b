extension BlogService {
    /// Rewrites the responses under post `postID` of `userID` after the
    /// inbox changed one that shows there (an approved reply edited or
    /// deleted, a like counted or undone). Nothing when the user is gone.
    public func rewriteResponses(ofUserID userID: Int64, postID: Int64) throws {
        guard let owner = try storage.user(id: userID) else { return }
        try storage.withPageLock(userID: owner.id) { try userPages.writeResponses(owner, postID: postID) }
    }
}
