import BlogModel
import Foundation

extension ForwardingStorage {
    func block(userID: Int64, _ target: BlockTarget, at date: Date, reject: @escaping FollowAnswerBody,
               notice: @escaping BlockNoticeBody) throws(StorageError) -> (followers: Int, responses: Int) {
        try store.block(userID: userID, target, at: date, reject: reject, notice: notice)
    }
    func unblock(userID: Int64, _ target: BlockTarget, at date: Date,
                 undo: @escaping BlockNoticeBody) throws(StorageError) -> Bool {
        try store.unblock(userID: userID, target, at: date, undo: undo)
    }
}
