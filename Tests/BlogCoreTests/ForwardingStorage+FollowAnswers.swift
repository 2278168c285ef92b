import Foundation
import BlogModel

/// The answers to follows and the approval setting, handed on.
extension ForwardingStorage {
    func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                     accepted: Bool, at date: Date, accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower {
        try store.addFollower(userID: userID, actorID: actorID, inbox: inbox, sharedInbox: sharedInbox,
                              followID: followID, accepted: accepted, at: date, accept: accept)
    }
    func acceptFollower(userID: Int64, actorID: String, at date: Date,
                        accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        try store.acceptFollower(userID: userID, actorID: actorID, at: date, accept: accept)
    }
    func refuseFollower(userID: Int64, actorID: String, at date: Date,
                        reject: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        try store.refuseFollower(userID: userID, actorID: actorID, at: date, reject: reject)
    }
    func block(userID: Int64, _ target: BlockTarget, at date: Date,
               reject: @escaping FollowAnswerBody) throws(StorageError) -> (followers: Int, responses: Int) {
        try store.block(userID: userID, target, at: date, reject: reject)
    }
    func approvesFollowersByHand(userID: Int64) throws(StorageError) -> Bool {
        try store.approvesFollowersByHand(userID: userID)
    }
    func setApprovesFollowersByHand(_ on: Bool, userID: Int64, at date: Date) throws(StorageError) {
        try store.setApprovesFollowersByHand(on, userID: userID, at: date)
    }
}
