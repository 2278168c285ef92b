import BlogModel
import BlogPages
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import Synchronization

/// The documents a fediverse server reads, answered from the database as
/// they are asked for (docs/activitypub.md):
///
/// - `/.well-known/webfinger?resource=acct:NAME@HOST`: where a blog's actor is;
/// - `/.well-known/nodeinfo`, `/nodeinfo/2.1`, `/nodeinfo/2.0`: the site;
/// - `/ap/NAME`: the blog as a `Person`; `/ap/NAME/outbox` (`?page=N`),
///   `/ap/NAME/followers`, `/ap/NAME/following`: its collections;
/// - `/ap/NAME/posts/ID`: a post as a `Note` (a deleted one: `410` and a
///   `Tombstone`).
///
/// An `ap/` URL asked by a browser (`Accept: text/html`, or none) is sent
/// to its page (`303`). A blog's page `NAME.html` and a post's page
/// `NAME/ID.html` asked with an ActivityPub type (`ActivityAccept`) are
/// answered with the same JSON as their `ap/` URL: Mastodon fetches a
/// pasted URL that way. Any other request for them goes on to the public
/// folder, whose pages then say `Vary: Accept`.
///
/// Every document read is charged to its address (`ReadingBudget`), and
/// reads at most a user, a page's `CollectionDocuments.pageSize` posts
/// and the page groups' counts.
public struct ActivityPubPages: WebApplication {
    let storage: any BlogStorage
    let urls: ActivityURLs
    let hooks: ActivityPubHooks
    let finger: WebFingerDocument
    public let budget: ReadingBudget
    private let usage: UsageCache

    /// The JSON's type.
    public static let contentType = ActivityContext.mediaType + "; charset=utf-8"

    /// `baseURL`: the site's (`BlogConfig.effectiveBaseURL`), ending with `/`.
    public init(storage: any BlogStorage, baseURL: String, hooks: ActivityPubHooks,
                budget: ReadingBudget = ReadingBudget(perSecond: 10, burst: 40),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.urls = ActivityURLs(base: baseURL)
        self.hooks = hooks
        self.finger = WebFingerDocument(urls: urls)
        self.budget = budget
        self.usage = UsageCache(now: now)
    }

    public func handles(path: String) -> Bool { ActivityPubRoute.document(path) != nil }

    /// Its own paths, and the pages asked as ActivityPub JSON (GET or HEAD).
    public func handles(head: WebRequestHead) -> Bool {
        if handles(path: head.path) { return true }
        guard head.method == .get || head.method == .head, ActivityAccept.wantsJSON(head.accept, page: true) else {
            return false
        }
        return ActivityPubRoute.page(head.path) != nil
    }

    public var negotiatesPages: Bool { true }

    public func bodyLimit(path: String) -> Int { 0 }

    public func respond(to request: WebRequest) -> WebResponse {
        guard request.method == .get || request.method == .head else {
            return Self.plain(.methodNotAllowed, "Read with GET.\n", extra: [.allow: "GET, HEAD"])
        }
        guard let route = ActivityPubRoute.document(request.path) ?? ActivityPubRoute.page(request.path) else {
            return Self.plain(.notFound, "No such page.\n")
        }
        // A browser at an ap/ URL goes to the page, at no cost to anyone.
        if let page = pageURL(route), !ActivityAccept.wantsJSON(request.head.accept) {
            return WebResponse(status: .seeOther, headers: [.location: page, .vary: "Accept", .cacheControl: "public, max-age=60"])
        }
        guard budget.take(for: request.peerAddress) else {
            let parts = budget.refusal
            return Self.plain(parts.status, parts.text, extra: [.retryAfter: String(parts.retryAfter)])
        }
        do {
            return try answer(route, request)
        } catch {
            return Self.plain(.serviceUnavailable, "The database did not answer; try again.\n", extra: [.retryAfter: "5"])
        }
    }

    private func answer(_ route: ActivityPubRoute, _ request: WebRequest) throws -> WebResponse {
        switch route {
        case .webFinger:
            return try webFinger(FormData(query: request.query))
        case .nodeInfoLinks:
            return Self.json(NodeInfoDocument.links(urls: urls), type: "application/json")
        case .nodeInfo(let schema):
            let (users, posts) = try usage.counts { try storage.userSummaries() }
            let info = NodeInfoDocument(version: hooks.version, users: users, localPosts: posts,
                                        openRegistrations: hooks.openRegistrations())
            return Self.json(info.document(schema: schema),
                             type: "application/json; profile=\"\(NodeInfoDocument.profile(schema: schema))#\""
                                 + "; charset=utf-8")
        case .actor(let name), .actorPage(let name):
            guard let user = try storage.user(named: name) else { return Self.noBlog }
            let pem: String
            do {
                pem = try hooks.publicKeyPEM(user.id)
            } catch {
                return Self.plain(.serviceUnavailable, "The blog's key is not ready; try again.\n", extra: [.retryAfter: "5"])
            }
            let actor = ActorDocument(user: user.name, settings: try storage.blogSettings(ofUserID: user.id),
                                      publicKeyPEM: pem, manuallyApprovesFollowers: try hooks.manuallyApprovesFollowers(user.id),
                                      published: user.createdAt, urls: urls)
            return Self.json(actor.document)
        case .outbox(let name):
            guard let user = try storage.user(named: name) else { return Self.noBlog }
            return try outbox(user, FormData(query: request.query))
        case .followers(let name):
            guard let user = try storage.user(named: name) else { return Self.noBlog }
            return Self.json(CollectionDocuments.followers(user: user.name, count: try hooks.followerCount(user.id), urls: urls))
        case .following(let name):
            guard let user = try storage.user(named: name) else { return Self.noBlog }
            return Self.json(CollectionDocuments.following(user: user.name, urls: urls))
        case .instanceActor:
            guard let pem = try? hooks.instanceKeyPEM() else {
                return Self.plain(.serviceUnavailable, "The site's key is not ready; try again.\n", extra: [.retryAfter: "5"])
            }
            return Self.json(InstanceActorDocument(publicKeyPEM: pem, urls: urls).document)
        case .object(let name, let id), .objectPage(let name, let id):
            guard let user = try storage.user(named: name) else { return Self.noBlog }
            if let post = try storage.posts(ids: [id]).first, post.userID == user.id {
                return Self.json(NoteDocument(post: post, user: user.name, urls: urls).document)
            }
            guard try storage.deletedPostIDs(ofUserID: user.id).contains(id) else {
                return Self.plain(.notFound, "No such post.\n")
            }
            return Self.json(ActivityContext.document(ActivityDocuments.tombstone(postID: id, user: user.name, urls: urls)),
                             status: .gone)
        }
    }

    /// WebFinger (RFC 7033): 400 without a resource we understand, 404
    /// for another host's or no blog.
    private func webFinger(_ query: FormData) throws -> WebResponse {
        guard let resource = query["resource"], !resource.isEmpty else {
            return Self.plain(.badRequest, "resource is missing: ?resource=acct:NAME@HOST\n", extra: Self.cors)
        }
        let name: String
        switch finger.user(in: resource) {
        case .malformed: return Self.plain(.badRequest, "resource is not acct:NAME@HOST or a blog's URL.\n", extra: Self.cors)
        case .elsewhere: return Self.plain(.notFound, "Not a blog of this site.\n", extra: Self.cors)
        case .user(let given): name = given
        }
        let blog = (try? Username(name)) == nil ? nil : try storage.user(named: name)
        // acct:HOST@HOST: the site's own actor, unless a blog has that name.
        if blog == nil, finger.namesInstance(name) {
            return Self.json(finger.instanceDocument(rels: query.all("rel")), type: WebFingerDocument.mediaType)
        }
        guard let user = blog else {
            return Self.plain(.notFound, "No such blog.\n", extra: Self.cors)
        }
        return Self.json(finger.document(user: user.name, rels: query.all("rel")), type: WebFingerDocument.mediaType)
    }

    /// The outbox, or its page `?page=N`: newest first, 20 a page.
    private func outbox(_ user: UserRecord, _ query: FormData) throws -> WebResponse {
        let groups = try storage.pageGroups(ofUserID: user.id, limit: nil)
        let total = groups.reduce(0) { $0 + $1.count }
        guard let text = query["page"] else {
            return Self.json(CollectionDocuments.outbox(user: user.name, totalItems: total, urls: urls))
        }
        guard let number = Int(text), number >= 1 else { return Self.plain(.badRequest, "page is a number from 1.\n") }
        guard number <= CollectionDocuments.pageCount(total) else { return Self.plain(.notFound, "No such page.\n") }
        let posts = try Self.page(number, of: user.id, groups: groups, storage: storage)
        let notes = posts.map { NoteDocument(post: $0, user: user.name, urls: urls) }
        return Self.json(CollectionDocuments.outboxPage(user: user.name, number: number, totalItems: total, notes: notes,
                                                        urls: urls))
    }

    /// The posts of outbox page `number`, in the author's order newest
    /// first: only the page groups that hold them are read.
    static func page(_ number: Int, of userID: Int64, groups: [PageGroup], storage: any BlogStorage) throws -> [PostRecord] {
        let size = CollectionDocuments.pageSize
        let skip = (number - 1) * size
        var before = 0
        var skipInFirst = 0
        var covered: [Int] = []
        for group in groups {
            let after = before + group.count
            if after > skip && before < skip + size {
                if covered.isEmpty { skipInFirst = skip - before }
                covered.append(group.page)
            }
            before = after
        }
        guard let newest = covered.first, let oldest = covered.last else { return [] }
        let stubs = try storage.postStubs(ofUserID: userID, pages: oldest...newest).dropFirst(skipInFirst).prefix(size)
        let byID = Dictionary(try storage.posts(ids: stubs.map(\.id)).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return stubs.compactMap { byID[$0.id] }
    }

    /// The page an `ap/` route stands for, for a browser; nil for the
    /// well-known documents and the pages themselves.
    private func pageURL(_ route: ActivityPubRoute) -> String? {
        switch route {
        case .actor(let name), .outbox(let name), .followers(let name), .following(let name): urls.page(name)
        case .object(let name, let id): urls.page(name, id: id)
        case .instanceActor: urls.base
        case .webFinger, .nodeInfoLinks, .nodeInfo, .actorPage, .objectPage: nil
        }
    }

    static let cors: HTTPFields = [HTTPField.Name("Access-Control-Allow-Origin")!: "*"]

    static let noBlog = plain(.notFound, "No such blog.\n")

    /// A document: public, the same for everyone, kept a minute.
    static func json(_ document: ActivityJSON, status: HTTPResponse.Status = .ok, type: String = contentType) -> WebResponse {
        var headers = cors
        headers[.cacheControl] = "public, max-age=60"
        headers[.vary] = "Accept"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return WebResponse(status: status, contentType: type, body: document.bytes, headers: headers)
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String, extra: HTTPFields = [:]) -> WebResponse {
        var headers = extra
        headers[.vary] = "Accept"
        return WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }
}

/// The site's counts for NodeInfo, read at most once a minute: they take
/// a pass over every user.
final class UsageCache: Sendable {
    private let now: @Sendable () -> Date
    private let kept = Mutex<(at: Date, users: Int, posts: Int)?>(nil)
    static let lifetime: TimeInterval = 60

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    func counts(_ read: () throws -> [UserSummary]) throws -> (users: Int, posts: Int) {
        let time = now()
        if let last = kept.withLock({ $0 }), time.timeIntervalSince(last.at) < Self.lifetime, time >= last.at {
            return (last.users, last.posts)
        }
        let summaries = try read()
        let counts = (users: summaries.count, posts: summaries.reduce(0) { $0 + $1.postCount })
        kept.withLock { $0 = (time, counts.users, counts.posts) }
        return counts
    }
}
