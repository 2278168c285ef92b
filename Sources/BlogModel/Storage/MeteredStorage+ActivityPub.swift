import Foundation

/// ActivityPub's calls, counted like the others.
extension MeteredStorage {
    public func actorKey(ofUserID userID: Int64) throws(StorageError) -> ActorKey? {
        try counted(try base.actorKey(ofUserID: userID))
    }
    public func storeActorKey(userID: Int64, publicPEM: String, privatePEM: String,
                              at date: Date) throws(StorageError) -> ActorKey {
        try counted(try base.storeActorKey(userID: userID, publicPEM: publicPEM, privatePEM: privatePEM, at: date))
    }

    public func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date) throws(StorageError) -> Follower {
        try counted(try base.addFollower(userID: userID, actorID: actorID, inbox: inbox, sharedInbox: sharedInbox,
                                         followID: followID, accepted: accepted, at: date))
    }
    public func acceptFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try counted(try base.acceptFollower(userID: userID, actorID: actorID))
    }
    public func follower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try counted(try base.follower(userID: userID, actorID: actorID))
    }
    public func removeFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try counted(try base.removeFollower(userID: userID, actorID: actorID))
    }
    public func forgetActor(_ actorID: String) throws(StorageError) -> (followers: Int, responses: Int) {
        try counted(try base.forgetActor(actorID))
    }
    public func followers(ofUserID userID: Int64, state: Follower.State?, offset: Int,
                          limit: Int) throws(StorageError) -> [Follower] {
        try counted(try base.followers(ofUserID: userID, state: state, offset: offset, limit: limit))
    }
    public func followerCount(ofUserID userID: Int64, state: Follower.State?) throws(StorageError) -> Int {
        try counted(try base.followerCount(ofUserID: userID, state: state))
    }
    public func deliveryTargets(ofUserID userID: Int64) throws(StorageError) -> [DeliveryTarget] {
        try counted(try base.deliveryTargets(ofUserID: userID))
    }
    public func removeFollowers(ofUserID userID: Int64, deliveryInbox inbox: String) throws(StorageError) -> Int {
        try counted(try base.removeFollowers(ofUserID: userID, deliveryInbox: inbox))
    }

    public func block(userID: Int64, _ target: BlockTarget,
                      at date: Date) throws(StorageError) -> (followers: Int, responses: Int) {
        try counted(try base.block(userID: userID, target, at: date))
    }
    public func unblock(userID: Int64, _ target: BlockTarget) throws(StorageError) -> Bool {
        try counted(try base.unblock(userID: userID, target))
    }
    public func blocks(ofUserID userID: Int64) throws(StorageError) -> [ActorBlock] {
        try counted(try base.blocks(ofUserID: userID))
    }
    public func isBlocked(userID: Int64, actorID: String) throws(StorageError) -> Bool {
        try counted(try base.isBlocked(userID: userID, actorID: actorID))
    }

    public func storeFediverseResponse(_ response: FediverseResponse, at date: Date) throws(StorageError) -> Webmention? {
        try counted(try base.storeFediverseResponse(response, at: date))
    }
    public func removeFediverseResponses(source: String, actorID: String,
                                         ofUserID userID: Int64?) throws(StorageError) -> [Webmention] {
        try counted(try base.removeFediverseResponses(source: source, actorID: actorID, ofUserID: userID))
    }
    public func removeFediverseResponses(ofActorID actorID: String, userID: Int64?) throws(StorageError) -> Int {
        try counted(try base.removeFediverseResponses(ofActorID: actorID, userID: userID))
    }
    public func fediverseResponses(source: String) throws(StorageError) -> [Webmention] {
        try counted(try base.fediverseResponses(source: source))
    }

    public func queueActivities(_ on: Bool) { base.queueActivities(on) }
    public func queuedActivities(limit: Int) throws(StorageError) -> [QueuedActivity] {
        try counted(try base.queuedActivities(limit: limit))
    }
    public func fanOut(_ activity: QueuedActivity, body: String?, at date: Date) throws(StorageError) -> Int {
        try counted(try base.fanOut(activity, body: body, at: date))
    }
    public func fanOutStep(_ activity: QueuedActivity, body: String, rows: Int,
                           at date: Date) throws(StorageError) -> FanOutStep {
        try counted(try base.fanOutStep(activity, body: body, rows: rows, at: date))
    }
    public func claimDeliveries(dueBy date: Date, lease: TimeInterval,
                                limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        try counted(try base.claimDeliveries(dueBy: date, lease: lease, limit: limit))
    }
    public func claimDeliveries(dueBy date: Date, lease: TimeInterval, limit: Int, skippingHosts: Set<String>,
                                perHost: Int) throws(StorageError) -> [OutgoingDelivery] {
        try counted(try base.claimDeliveries(dueBy: date, lease: lease, limit: limit, skippingHosts: skippingHosts,
                                             perHost: perHost))
    }
    public func settleDeliveries(_ results: [(delivery: OutgoingDelivery,
                                              settlement: DeliverySettlement)]) throws(StorageError) {
        try counted(try base.settleDeliveries(results))
    }
    public func queuedDeliveries(limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        try counted(try base.queuedDeliveries(limit: limit))
    }
    public func deliveryCounts() throws(StorageError) -> DeliveryCounts { try counted(try base.deliveryCounts()) }
}
