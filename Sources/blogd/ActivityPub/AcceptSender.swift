import BlogApp
import BlogCore
import BlogModel
import BlogPages
import BlogSignatures
import Foundation
import Logging

/// Sends the `Accept` of a follower's Follow (`ActivityDocuments.accept`),
/// signed with the blog's key, to the follower's inbox, in the background
/// (the inbox answers its `202` at once), through the bounded fetcher.
/// A failed send is tried again after `retryDelays`; a refusal that will
/// not change (a 4xx other than 401, 403, 408, 429) ends it.
///
/// Not durable: the tries live in memory, so an Accept under way when
/// blogd stops is not sent again (docs/activitypub-inbox.md).
struct AcceptSender: Sendable {
    let storage: any BlogStorage
    let http: any OutgoingHTTP
    let keys: BlogKeys
    let urls: ActivityURLs
    /// Seconds before each try after the first.
    var retryDelays: [Double] = [10, 60, 300, 1800]
    var logger = Logger(label: "blogd.activitypub.accept")

    func send(_ follower: InboxFollower, byUserID userID: Int64) {
        Task.detached { await self.deliver(follower, userID: userID) }
    }

    private func deliver(_ follower: InboxFollower, userID: Int64) async {
        let pair: ActorKeyPair
        let name: String
        do {
            // The key exists by now (the Follow's key fetch was signed with it).
            guard let user = try storage.user(id: userID) else { return }
            name = user.name
            pair = try keys.pair(ofUserID: userID)
        } catch {
            logger.warning("accept not sent", metadata: ["follower": "\(follower.actor)", "error": "\(error)"])
            return
        }
        let body = ActivityDocuments.accept(followID: follower.followID, follower: follower.actor,
                                            user: name, urls: urls).bytes
        for attempt in 0...retryDelays.count {
            if attempt > 0 {
                do { try await Task.sleep(for: .seconds(retryDelays[attempt - 1])) } catch { return }
            }
            do {
                // Signed at each try: its Date must be fresh.
                let signature = try SignatureSigner.sign(method: "POST", url: follower.inbox, body: body,
                                                         keyID: urls.key(name), pair: pair)
                let answer = try await http.post(follower.inbox, headers: [("Content-Type", "application/activity+json")] + signature,
                                                  body: body, maxBytes: 16 << 10)
                switch answer.status {
                case 200..<300:
                    logger.info("accept sent", metadata: ["follower": "\(follower.actor)"])
                    return
                case 401, 403, 408, 429, 500...:
                    // 401/403: the inbox may not have our key yet.
                    logger.info("accept failed", metadata: ["follower": "\(follower.actor)", "status": "\(answer.status)"])
                default:
                    logger.info("accept refused", metadata: ["follower": "\(follower.actor)", "status": "\(answer.status)"])
                    return
                }
            } catch OutgoingHTTPError.refused(let reason) {
                logger.info("accept refused", metadata: ["follower": "\(follower.actor)", "error": "\(reason)"])
                return
            } catch {
                logger.info("accept failed", metadata: ["follower": "\(follower.actor)", "error": "\(error)"])
            }
        }
    }
}
