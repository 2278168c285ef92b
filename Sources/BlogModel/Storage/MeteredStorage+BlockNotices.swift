import Foundation

/// Blocks with their `Block` and `Undo`, counted like the others.
extension MeteredStorage {
    public func block(userID: Int64, _ target: BlockTarget, at date: Date, reject: @escaping FollowAnswerBody,
                      notice: @escaping BlockNoticeBody) throws(StorageError) -> (followers: Int, responses: Int) {
        try counted(try base.block(userID: userID, target, at: date, reject: reject, notice: notice))
    }
    public func unblock(userID: Int64, _ target: BlockTarget, at date: Date,
                        undo: @escaping BlockNoticeBody) throws(StorageError) -> Bool {
        try counted(try base.unblock(userID: userID, target, at: date, undo: undo))
    }
}
