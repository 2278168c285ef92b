import BlogFetch
import Foundation
import Synchronization

/// Where a remote actor takes deliveries, and what to call it: read from
/// its actor document. The inbox asks only when the signature check did
/// not bring it (a Follow needs the follower's inbox).
public protocol InboxActorProfiles: Sendable {
    /// `actor`'s profile; nil when its document cannot be had or names no inbox.
    func profile(of actor: String) -> InboxActorProfile?
}

/// The parts of an actor document the inbox uses.
public struct InboxActorProfile: Sendable, Equatable {
    public var inbox: String
    public var sharedInbox: String?
    public var name: String?
    public var url: String?

    public init(inbox: String, sharedInbox: String? = nil, name: String? = nil, url: String? = nil) {
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.name = name
        self.url = url
    }

    /// Reads an actor document; nil unless its `id` is `actor` and its
    /// `inbox` an http(s) URL on the same host (a document cannot point a
    /// follower's deliveries at a third party).
    public static func read(_ body: [UInt8], actor: String) -> InboxActorProfile? {
        guard body.count <= InboundActivity.maxBytes, JSONDepth.isWithin(InboundActivity.maxDepth, body),
              let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              object["id"] as? String == actor, let inbox = object["inbox"] as? String,
              sameHost(inbox, actor)
        else { return nil }
        let endpoints = object["endpoints"] as? [String: Any]
        let shared = (endpoints?["sharedInbox"] as? String).flatMap { sameHost($0, actor) ? $0 : nil }
        let name = ((object["name"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? object["preferredUsername"] as? String)
            .map { String($0.prefix(InboundActivity.nameLimit)) }
        let url = (object["url"] as? String).flatMap { isWeb($0) ? $0 : nil }
        return InboxActorProfile(inbox: inbox, sharedInbox: shared, name: name, url: url)
    }

    private static func sameHost(_ url: String, _ actor: String) -> Bool {
        guard isWeb(url), let host = URL(string: url)?.host?.lowercased() else { return false }
        return host == URL(string: actor)?.host?.lowercased()
    }

    private static func isWeb(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "https" || scheme == "http") && url.host != nil
    }
}

/// Actor documents fetched with the bounded outgoing fetcher (its bytes,
/// time, concurrency and address rules), asked with ActivityPub's type.
public struct FetchedActorProfiles: InboxActorProfiles {
    let fetcher: OutgoingFetcher
    /// How long a request's thread waits for the fetch.
    let waitSeconds: Double

    public init(fetcher: OutgoingFetcher, waitSeconds: Double = 10) {
        self.fetcher = fetcher
        self.waitSeconds = waitSeconds
    }

    public func profile(of actor: String) -> InboxActorProfile? {
        let found = Mutex<InboxActorProfile?>(nil)
        let done = DispatchSemaphore(value: 0)
        let fetcher = fetcher
        let task = Task {
            if let response = try? await fetcher.get(actor, accept: "application/activity+json, application/ld+json"),
               response.status == 200 {
                found.withLock { $0 = InboxActorProfile.read(response.body, actor: actor) }
            }
            done.signal()
        }
        guard done.wait(timeout: .now() + waitSeconds) == .success else {
            task.cancel()
            return nil
        }
        return found.withLock { $0 }
    }
}
