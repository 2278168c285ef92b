import BlogApp
import BlogCore
import BlogFetch

extension BlogConfig {
    /// Where the authorization page learns an app's name and published
    /// redirect URIs: its client_id fetched with the outgoing bounds (at
    /// most `FetchedClientInfo.Settings`' bytes), the page's thread
    /// waiting no longer than the fetcher's time limit and a second.
    var clientInfoSource: FetchedClientInfo {
        var clientSettings = FetchedClientInfo.Settings(wait: outgoingTimeout + 1)
        var bounds = fetchSettings
        bounds.maxBytes = min(bounds.maxBytes, clientSettings.maxBytes)
        clientSettings.maxBytes = bounds.maxBytes
        bounds.userAgent = "blogd (IndieAuth; +\(effectiveBaseURL))"
        return FetchedClientInfo(http: FetcherHTTP(OutgoingFetcher(settings: bounds)), settings: clientSettings)
    }
}
