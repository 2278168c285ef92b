import BlogApp
import BlogCore

/// A follower's actor document, fetched with a GET signed as the blog
/// posted to (`SigningActor`, through `BlogSignedHTTP`) within the bounded
/// fetcher: bovine's actors answer nothing else.
struct SignedActorProfiles: InboxActorProfiles {
    let http: any OutgoingHTTP
    var waitSeconds: Double = 10

    func profile(of actor: String) -> InboxActorProfile? {
        let accept = KeyFetcher.accept
        guard case .success(let answer) = http.getWaiting(actor, headers: [("Accept", accept)], maxBytes: 256 << 10,
                                                         within: waitSeconds),
              answer.status == 200 else { return nil }
        return InboxActorProfile.read(answer.body, actor: actor)
    }
}
