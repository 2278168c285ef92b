import BlogApp
import BlogCore
import BlogFetch
import BlogLimits
import BlogPages
import BlogWeb

extension Serve {
    /// The Webmention endpoint, and the verifier it nudges, started here:
    /// sources are fetched in the background under the `outgoing_*` bounds.
    static func webmentionApplications(_ settings: BlogConfig, service: BlogService) -> [any WebApplication] {
        let fetcher = OutgoingFetcher(settings: settings.fetchSettings)
        let verifier = WebmentionVerifier(service: service, fetcher: fetcher, settings: settings.webmentionVerifierSettings)
        verifier.start()
        let budget = AddressBudget(perSecond: settings.webmentionRate, burst: settings.webmentionBurst)
        return [WebmentionEndpoint(service: service, budget: budget, accepted: { verifier.nudge() })]
    }
}

/// Where the pages' `Link` header says the Webmention endpoint is, as
/// `micropubLink` does for Micropub.
func webmentionLink(_ settings: BlogConfig) -> String {
    (settings.baseURL.map { _ in settings.effectiveBaseURL } ?? "/") + PageRenderer.webmentionPath
}

extension BlogConfig {
    /// The bounds of every outgoing fetch.
    var fetchSettings: FetchSettings {
        FetchSettings(maxBytes: outgoingMaxBytes, timeLimit: .milliseconds(Int64(outgoingTimeout * 1000)),
                      concurrency: outgoingConcurrency, allowPrivateAddresses: outgoingAllowPrivate,
                      userAgent: "blogd (Webmention; +\(effectiveBaseURL))")
    }
}
