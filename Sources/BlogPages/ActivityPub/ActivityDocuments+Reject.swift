import Foundation

extension ActivityDocuments {
    /// `Reject` of the `Follow` `followID` that `follower` sent to `user`:
    /// a follow request refused, or a follower removed (Mastodon drops its
    /// side of the follow on a Reject, as it does when its own users
    /// remove a follower). The Follow goes inside whole, as in `accept`.
    public static func reject(followID: String, follower: String, user: String, urls: ActivityURLs) -> ActivityJSON {
        followAnswer("Reject", id: rejectID(followID: followID, user: user, urls: urls),
                     followID: followID, follower: follower, user: user, urls: urls)
    }

    /// `<actor>#reject-<16 hex digits>`: the hash `acceptID` uses, so a
    /// follow's Accept and Reject are told apart by their name only.
    public static func rejectID(followID: String, user: String, urls: ActivityURLs) -> String {
        let accept = acceptID(followID: followID, user: user, urls: urls)
        return urls.actor(user) + "#reject-" + accept.suffix(16)
    }
}
