import BlogApp
import BlogCore
import BlogFetch
import BlogLimits
import BlogModel
import BlogPages
import BlogWeb

extension Serve {
    /// The ActivityPub side (docs/activitypub.md): the inboxes ahead of the
    /// documents a fediverse server reads (WebFinger, NodeInfo, each blog's
    /// actor, posts and collections). Each blog's key is made on first
    /// need; follows are accepted at once unless the blog approves its
    /// followers by hand (docs/activitypub-moderation.md).
    static func activityPubApplications(_ settings: BlogConfig, store: any BlogStorage,
                                        service: BlogService) -> [any WebApplication] {
        let keys = BlogKeys(storage: store)
        let instance = InstanceActorKey(storage: store)
        var hooks = ActivityPubHooks(version: BlogdVersion.number)
        hooks.openRegistrations = { [service] in service.registrationOpen }
        hooks.publicKeyPEM = { userID in try keys.publicKeyPEM(ofUserID: userID) }
        hooks.followerCount = { [store] userID in try store.followerCount(ofUserID: userID, state: .accepted) }
        hooks.manuallyApprovesFollowers = { [service] userID in try service.approvesFollowersByHand(userID: userID) }
        hooks.instanceKeyPEM = { try instance.publicKeyPEM() }
        return [inbox(settings, store: store, service: service, keys: keys, instance: instance),
                ActivityPubPages(storage: store, baseURL: settings.effectiveBaseURL, hooks: hooks)]
    }

    /// `POST /ap/NAME/inbox` and `/ap/inbox`: signatures checked by
    /// BlogSignatures' `InboxVerifier`, its keys fetched by signed GETs,
    /// follows kept and, when accepted, their `Accept` queued for the
    /// delivery worker, all through the bounded fetcher.
    static func inbox(_ settings: BlogConfig, store: any BlogStorage, service: BlogService,
                      keys: BlogKeys, instance: InstanceActorKey) -> any WebApplication {
        let fetcher = OutgoingFetcher(settings: settings.fetchSettings)
        let http = FetcherHTTP(fetcher)
        let urls = ActivityURLs(base: settings.effectiveBaseURL)
        // Accepts go with their follower into the delivery queue (BlogService.receiveFollow).
        let actions = StoredInboxActions(service: service, baseURL: settings.effectiveBaseURL)
        // Key fetches and followers' actors are GETs signed as the blog
        // posted to, or at the shared inbox as the site's own actor.
        let signed = BlogSignedHTTP(base: http, keys: keys, instance: instance, urls: urls)
        let verifier = InboxVerifier(keys: KeyFetcher(http: signed))
        return InboxSigningScope(inbox: InboxEndpoint(
            baseURL: settings.effectiveBaseURL, signatures: VerifiedInboxSignatures(verifier: verifier, scheme: settings.effectiveBaseURL.hasPrefix("http:") ? "http" : "https"),
            actions: actions, profiles: SignedActorProfiles(http: signed),
            budget: AddressBudget(perSecond: settings.inboxRate, burst: settings.inboxBurst)))
    }
}
