import BlogApp
import BlogCore
import BlogModel
import BlogServer
import BlogWeb
import BlogAuth

extension Serve {
    /// The web client and Micropub, each change through the blog port's
    /// own budgets and lanes (`BlogServer.perform`).
    static func application(_ settings: BlogConfig, store: any BlogStorage, server: BlogServer,
                            service: BlogService) -> any WebApplication {
        var backend = WebClient.Backend(
            perform: { request, extras, session in server.perform(request, extras: extras, session: session) },
            storePhoto: { photo, image, thumbnail, user, session in
                service.storePhoto(photo, image: image, thumbnail: thumbnail, for: user, session: session)
            },
            storage: store, tokens: AccessTokens(storage: store),
            restore: { user, id, session in service.restorePost(user, id: id, session: session) },
            trashDays: settings.trashDays,
            maxTextBytes: settings.maxMessageBytes,
            setPassword: { user, password in try service.setPassword(user.value, to: password) })
        backend.isRegistrationOpen = { [service] in service.registrationOpen }
        backend.photoFetcher = WebmentionSetup.photoFetcher(settings, maxBytes: backend.photoLimits.maxBytes)
        backend.setBlogSettings = { [service] name, blog in try service.setBlogSettings(blog, of: name) }
        backend.blogSettingsBudget = settings.blogSettingsBudget
        let indieAuth = IndieAuthServer(baseURL: settings.effectiveBaseURL, storage: store, tokens: backend.tokens,
                                        budget: settings.indieAuthBudget, clients: settings.clientInfoSource)
        let client = WebClient(backend: backend, indieAuth: indieAuth)
        let moderation: [any WebApplication] = [WebmentionModeration(client: client, service: service),
                                                FediverseSettings(client: client, service: service)]
        return ApplicationSet(moderation
            + webmentionApplications(settings, service: service)
            + [client, Micropub(backend: backend, baseURL: settings.effectiveBaseURL), IndieAuthEndpoints(server: indieAuth)]
            + readingApplications(settings, store: store, service: service)
            + activityPubApplications(settings, store: store, service: service))
    }
}
