import Foundation

/// The answers to follows and the approval setting, counted like the others.
extension MeteredStorage {
    public func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date, accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower {
        try counted(try base.addFollower(userID: userID, actorID: actorID, inbox: inbox, sharedInbox: sharedInbox,
                                         followID: followID, accepted: accepted, at: date, accept: accept))
    }
    public func acceptFollower(userID: Int64, actorID: String, at date: Date,
                               accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        try counted(try base.acceptFollower(userID: userID, actorID: actorID, at: date, accept: accept))
    }
    public func refuseFollower(userID: Int64, actorID: String, at date: Date,
                               reject: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        try counted(try base.refuseFollower(userID: userID, actorID: actorID, at: date, reject: reject))
    }
    public func block(userID: Int64, _ target: BlockTarget, at date: Date,
                      reject: @escaping FollowAnswerBody) throws(StorageError) -> (followers: Int, responses: Int) {
        try counted(try base.block(userID: userID, target, at: date, reject: reject))
    }
    public func approvesFollowersByHand(userID: Int64) throws(StorageError) -> Bool {
        try counted(try base.approvesFollowersByHand(userID: userID))
    }
    public func setApprovesFollowersByHand(_ on: Bool, userID: Int64, at date: Date) throws(StorageError) {
        try counted(try base.setApprovesFollowersByHand(on, userID: userID, at: date))
    }
}
