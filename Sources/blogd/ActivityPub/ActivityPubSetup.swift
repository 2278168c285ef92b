import BlogCore
import CLinux
import BlogFetch
import BlogModel

/// ActivityPub's outbox side: what blogd gives the store and the delivery worker.
enum ActivityPubSetup {
    /// The store queues a Create, Update or Delete for every change of a
    /// post, in the change's own commit, while the web side is on.
    static func queue(in store: any BlogStorage) {
        store.queueActivities(true)
    }

    /// The delivery worker, started, woken by the service after each change
    /// of a post: signed POSTs of `NoteActivityRenderer`'s documents to the
    /// followers' inboxes through the bounded fetcher, whose HTTP client
    /// runs on an event loop thread of its own at nice 10 (the signing is
    /// at nice 10 too: `SigningThreads`), so a fan-out takes the CPU the
    /// blog port's and the pages' requests leave. Each request's time
    /// limit is a timer on that same loop (`FetchDeadline`): a starved
    /// loop reads an answer that has come before it runs the timer, so
    /// the low priority does not turn answers into retries.
    static func startDelivery(_ settings: BlogConfig, store: any BlogStorage, service: BlogService) -> ActivityDelivery {
        let fetcher = OutgoingFetcher(settings: settings.fetchSettings, ownLoopThreads: 1) {
            _ = clinux_set_thread_nice(10)
        }
        let delivery = ActivityDelivery(storage: store, http: FetcherHTTP(fetcher), signer: SignatureSigner(),
                                        renderer: NoteActivityRenderer(), baseURL: settings.effectiveBaseURL)
        service.activitiesQueued { delivery.wake() }
        delivery.start()
        return delivery
    }
}
