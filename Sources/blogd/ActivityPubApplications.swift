import BlogApp
import BlogCore
import BlogModel
import BlogWeb

extension Serve {
    /// The documents a fediverse server reads: WebFinger, NodeInfo, each
    /// blog's actor, posts and collections (docs/activitypub.md).
    /// `hooks` is where the key store, the followers and the author's
    /// choice on follows are wired.
    static func activityPubApplications(_ settings: BlogConfig, store: any BlogStorage,
                                        service: BlogService) -> [any WebApplication] {
        var hooks = ActivityPubHooks(version: BlogdVersion.number)
        hooks.openRegistrations = { [service] in service.registrationOpen }
        return [ActivityPubPages(storage: store, baseURL: settings.effectiveBaseURL, hooks: hooks)]
    }
}
