import BlogCore
import BlogFetch
import BlogModel
import BlogPages
import Logging

/// Webmention sending and Micropub's photos by URL: what blogd gives them
/// (the link rule, the bounded fetcher, the sender's thread).
enum WebmentionSetup {
    /// The store queues a Webmention for every link of every post change,
    /// in the change's own commit (admin commands' deletions too).
    static func queue(in store: any BlogStorage) {
        store.queueWebmentions(with: MentionLinks { LinkedText.urls(in: $0) })
    }

    /// The sender, started, woken by the service after each change of a
    /// post; its sources are the posts' pages under `base_url`.
    static func startSender(_ settings: BlogConfig, store: any BlogStorage, service: BlogService) -> WebmentionSender {
        let fetcher = OutgoingFetcher(settings: settings.fetchSettings)
        let sender = WebmentionSender(storage: store, http: FetcherHTTP(fetcher), baseURL: settings.effectiveBaseURL,
                                      settings: settings.webmentionSenderSettings)
        service.webmentionsQueued { sender.wake() }
        sender.start()
        return sender
    }

    /// The fetcher of photos by URL: the outgoing bounds, but at most the
    /// upload limit's bytes instead of a page's.
    static func photoFetcher(_ settings: BlogConfig, maxBytes: Int) -> any OutgoingHTTP {
        var bounds = settings.fetchSettings
        bounds.maxBytes = maxBytes
        return FetcherHTTP(OutgoingFetcher(settings: bounds))
    }
}
