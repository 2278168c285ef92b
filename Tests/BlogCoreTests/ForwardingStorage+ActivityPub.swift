import BlogModel
import Foundation

/// ActivityPub's calls, handed on.
extension ForwardingStorage {
    func actorKey(ofUserID userID: Int64) throws(StorageError) -> ActorKey? {
        try store.actorKey(ofUserID: userID)
    }
    func storeActorKey(userID: Int64, publicPEM: String, privatePEM: String,
                              at date: Date) throws(StorageError) -> ActorKey {
        try store.storeActorKey(userID: userID, publicPEM: publicPEM, privatePEM: privatePEM, at: date)
    }

    func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date) throws(StorageError) -> Follower {
        try store.addFollower(userID: userID, actorID: actorID, inbox: inbox, sharedInbox: sharedInbox,
                              followID: followID, accepted: accepted, at: date)
    }
    func acceptFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try store.acceptFollower(userID: userID, actorID: actorID)
    }
    func follower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try store.follower(userID: userID, actorID: actorID)
    }
    func removeFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try store.removeFollower(userID: userID, actorID: actorID)
    }
    func forgetActor(_ actorID: String) throws(StorageError) -> (followers: Int, responses: Int) {
        try store.forgetActor(actorID)
    }
    func followers(ofUserID userID: Int64, state: Follower.State?, offset: Int,
                          limit: Int) throws(StorageError) -> [Follower] {
        try store.followers(ofUserID: userID, state: state, offset: offset, limit: limit)
    }
    func followerCount(ofUserID userID: Int64, state: Follower.State?) throws(StorageError) -> Int {
        try store.followerCount(ofUserID: userID, state: state)
    }
    func deliveryTargets(ofUserID userID: Int64) throws(StorageError) -> [DeliveryTarget] {
        try store.deliveryTargets(ofUserID: userID)
    }
    func removeFollowers(ofUserID userID: Int64, deliveryInbox inbox: String) throws(StorageError) -> Int {
        try store.removeFollowers(ofUserID: userID, deliveryInbox: inbox)
    }

    func block(userID: Int64, _ target: BlockTarget,
                      at date: Date) throws(StorageError) -> (followers: Int, responses: Int) {
        try store.block(userID: userID, target, at: date)
    }
    func unblock(userID: Int64, _ target: BlockTarget) throws(StorageError) -> Bool {
        try store.unblock(userID: userID, target)
    }
    func blocks(ofUserID userID: Int64) throws(StorageError) -> [ActorBlock] {
        try store.blocks(ofUserID: userID)
    }
    func isBlocked(userID: Int64, actorID: String) throws(StorageError) -> Bool {
        try store.isBlocked(userID: userID, actorID: actorID)
    }

    func storeFediverseResponse(_ response: FediverseResponse, at date: Date) throws(StorageError) -> Webmention? {
        try store.storeFediverseResponse(response, at: date)
    }
    func removeFediverseResponses(source: String, actorID: String,
                                         ofUserID userID: Int64?) throws(StorageError) -> [Webmention] {
        try store.removeFediverseResponses(source: source, actorID: actorID, ofUserID: userID)
    }
    func removeFediverseResponses(ofActorID actorID: String, userID: Int64?) throws(StorageError) -> Int {
        try store.removeFediverseResponses(ofActorID: actorID, userID: userID)
    }
    func fediverseResponses(source: String) throws(StorageError) -> [Webmention] {
        try store.fediverseResponses(source: source)
    }

    func queueActivities(_ on: Bool) { store.queueActivities(on) }
    func queuedActivities(limit: Int) throws(StorageError) -> [QueuedActivity] {
        try store.queuedActivities(limit: limit)
    }
    func fanOut(_ activity: QueuedActivity, body: String?, at date: Date) throws(StorageError) -> Int {
        try store.fanOut(activity, body: body, at: date)
    }
    func fanOutStep(_ activity: QueuedActivity, body: String, rows: Int, at date: Date) throws(StorageError) -> FanOutStep {
        try store.fanOutStep(activity, body: body, rows: rows, at: date)
    }
    func claimDeliveries(dueBy date: Date, lease: TimeInterval,
                                limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        try store.claimDeliveries(dueBy: date, lease: lease, limit: limit)
    }
    func claimDeliveries(dueBy date: Date, lease: TimeInterval, limit: Int, skippingHosts: Set<String>,
                         perHost: Int) throws(StorageError) -> [OutgoingDelivery] {
        try store.claimDeliveries(dueBy: date, lease: lease, limit: limit, skippingHosts: skippingHosts, perHost: perHost)
    }
    func settleDeliveries(_ results: [(delivery: OutgoingDelivery,
                                              settlement: DeliverySettlement)]) throws(StorageError) {
        try store.settleDeliveries(results)
    }
    func queuedDeliveries(limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        try store.queuedDeliveries(limit: limit)
    }
    func deliveryCounts() throws(StorageError) -> DeliveryCounts { try store.deliveryCounts() }
}
