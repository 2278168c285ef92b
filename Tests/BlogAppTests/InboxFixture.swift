import BlogApp
import BlogCore
import BlogLimits
import BlogModel
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Testing

/// A blog with the inboxes on a real page server on loopback, beside the
/// web client: `alice` with one post, activities POSTed over real HTTP.
/// The signature check and the ActivityPub storage are stand-ins
/// (`FakeSignatures`, `FakeInboxActions`) that record what they were asked;
/// replies also go into the blog's real Webmention storage, so that the
/// existing approval shows them on the post's page.
final class InboxFixture: @unchecked Sendable {
    let app: AppFixture
    let user: UserRecord
    let postID: Int64
    let web: WebServer
    /// The stand-in signature check, unless the test gave a real one.
    let signatures = FakeSignatures()
    let actions: FakeInboxActions

    static let bob = "https://social.example/users/bob"
    var alice: String { AppFixture.base + "ap/alice" }
    var postObject: String { AppFixture.base + "ap/alice/posts/\(postID)" }
    var postURL: String { AppFixture.base + "alice/\(postID).html" }
    var postPage: String { app.file("alice/\(postID).html") ?? "" }

    init(budget: AddressBudget = AddressBudget(perSecond: 1000, burst: 1000), acceptsFollowers: Bool = true,
         profiles: (any InboxActorProfiles)? = nil, checking: (any InboxSignatureChecking)? = nil,
         stored: ((AppFixture) -> any InboxActions)? = nil) async throws {
        app = try AppFixture()
        try app.blog.service.moderateAddUser("alice", password: "pw")
        user = try #require(try app.blog.store.user(named: "alice"))
        let secret = try app.tokens.issue(userID: user.id, kind: .bearer, scopes: [.create], label: "t", lifetime: nil).secret
        let created = app.micropub.respond(to: WebRequest(
            method: .post, path: "/micropub",
            headers: [.contentType: "application/x-www-form-urlencoded", .authorization: "Bearer \(secret)"],
            body: Array("h=entry&content=Hello+fediverse".utf8), peerAddress: "203.0.113.5", secure: true))
        let location = try #require(created.headers[.location])
        postID = try #require(Int64(location.split(separator: "/").last!.dropLast(5)))
        actions = FakeInboxActions(store: app.blog.store, service: app.blog.service, base: AppFixture.base,
                                   acceptsFollowers: acceptsFollowers)
        // A clock that stands still: a budget spent stays spent.
        let inbox = InboxEndpoint(baseURL: AppFixture.base, signatures: checking ?? signatures,
                                  actions: stored?(app) ?? actions, profiles: profiles,
                                  budget: budget,
                                  clock: { Moment(nanoseconds: 1_000_000_000) })
        web = try await WebServer(folder: app.blog.publicFolder, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"),
                                  limits: .patient, application: ApplicationSet([inbox, WebmentionModeration(client: app.client, service: app.blog.service),
                                                               app.client]))
    }

    func close() async { await web.stop() }

    /// POSTs `body` to `path` over HTTP, signed (for the stand-in) by
    /// `keyID`'s actor unless nil.
    func post(_ body: String, to path: String = "/ap/alice/inbox", keyID: String? = "\(InboxFixture.bob)#main-key",
              headers: [String: String] = [:]) async throws -> WireResponse {
        var head = "POST \(path) HTTP/1.1\r\nHost: blog.example\r\nContent-Type: application/activity+json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n"
        if let keyID { head += "Signature: keyId=\"\(keyID)\",algorithm=\"rsa-sha256\",headers=\"(request-target) host date digest\",signature=\"x\"\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = head + "\r\n" + body
        let port = web.port
        return try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send(request)
            return try connection.readResponse()
        }
    }

    /// An activity of `type` by `actor` (Bob by default) as JSON.
    static func activity(_ type: String, id: String = "https://social.example/activities/\(UUID().uuidString)",
                         actor: String = InboxFixture.bob, object: Any) -> String {
        let all: [String: Any] = ["@context": "https://www.w3.org/ns/activitystreams", "type": type, "id": id,
                                  "actor": actor, "object": object]
        let data = try! JSONSerialization.data(withJSONObject: all, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// Bob's reply Note to `target`.
    static func note(id: String = "https://social.example/notes/1", inReplyTo: String, content: String) -> [String: Any] {
        ["id": id, "type": "Note", "attributedTo": bob, "inReplyTo": inReplyTo, "content": content,
         "url": "https://social.example/@bob/1"]
    }
}

/// A stand-in for the HTTP signature check: the signer is the `keyId`'s
/// actor (its fragment dropped); no `Signature` header, or a key id with
/// `wrong` in it, is refused; one with `slow` is refused for now. A key
/// on a loopback address brings no inbox (its document is served there).
final class FakeSignatures: InboxSignatureChecking {
    private let calls = Mutex(0)
    var count: Int { calls.withLock { $0 } }

    func signer(of request: WebRequest) -> Result<InboxSigner, InboxSignatureRefusal> {
        calls.withLock { $0 += 1 }
        guard let header = request.headers[HTTPField.Name("Signature")!],
              let start = header.range(of: "keyId=\"")?.upperBound,
              let end = header[start...].firstIndex(of: "\"")
        else { return .failure(InboxSignatureRefusal("The request carries no signature.")) }
        let keyID = String(header[start..<end])
        if keyID.contains("wrong") { return .failure(InboxSignatureRefusal("The signature does not verify.")) }
        if keyID.contains("slow") { return .failure(InboxSignatureRefusal("The key could not be fetched now.", isTemporary: true)) }
        let actor = String(keyID.prefix { $0 != "#" })
        if actor.hasPrefix("http://127.0.0.1") { return .success(InboxSigner(actor: actor)) }
        let host = URL(string: actor)?.host ?? "x"
        return .success(InboxSigner(actor: actor, inbox: actor + "/inbox", sharedInbox: "https://\(host)/inbox",
                                    name: "Bob", url: "https://\(host)/@bob"))
    }
}

/// An in-memory ActivityPub storage that records every change; blogs and
/// posts come from the real store. Replies are also stored as verified
/// Webmentions of the post, so approving them in the web client shows
/// them on its page.
final class FakeInboxActions: InboxActions, @unchecked Sendable {
    struct State {
        var followers: [Int64: [String: (follower: InboxFollower, accepted: Bool)]] = [:]
        var accepts: [(userID: Int64, follower: InboxFollower)] = []
        var responses: [InboxResponse] = []
        var webmentions: [String: Int64] = [:]
        var blocked: Set<String> = []
        var removedActors: [String] = []
    }

    let store: any BlogStorage
    let service: BlogService
    let base: String
    let acceptsFollowers: Bool
    let state = Mutex(State())

    init(store: any BlogStorage, service: BlogService, base: String, acceptsFollowers: Bool) {
        self.store = store
        self.service = service
        self.base = base
        self.acceptsFollowers = acceptsFollowers
    }

    var followers: [InboxFollower] { state.withLock { $0.followers.values.flatMap { $0.values.map(\.follower) } } }
    var accepted: [String] { state.withLock { $0.followers.values.flatMap { $0.values.filter(\.accepted).map(\.follower.actor) } } }
    var accepts: [(userID: Int64, follower: InboxFollower)] { state.withLock { $0.accepts } }
    var responses: [InboxResponse] { state.withLock { $0.responses } }
    func block(_ actorOrHost: String) { _ = state.withLock { $0.blocked.insert(actorOrHost) } }

    func blog(named name: String) throws(InboxActionError) -> InboxBlog? {
        do {
            guard let user = try store.user(named: name), !user.suspended else { return nil }
            return InboxBlog(userID: user.id, name: name, acceptsFollowers: acceptsFollowers)
        } catch { throw .storage(error) }
    }

    func hasPost(_ postID: Int64, ofUserID userID: Int64) throws(InboxActionError) -> Bool {
        do { return try store.posts(ids: [postID]).first?.userID == userID } catch { throw .storage(error) }
    }

    func isBlocked(actor: String, ofUserID userID: Int64) throws(InboxActionError) -> Bool {
        let host = URL(string: actor)?.host ?? ""
        return state.withLock { $0.blocked.contains(actor) || $0.blocked.contains(host) }
    }

    func addFollower(_ follower: InboxFollower, ofUserID userID: Int64, accepted: Bool) throws(InboxActionError) {
        state.withLock { $0.followers[userID, default: [:]][follower.actor] = (follower, accepted) }
    }

    func queueAccept(of follower: InboxFollower, byUserID userID: Int64) throws(InboxActionError) {
        state.withLock { $0.accepts.append((userID, follower)) }
    }

    func removeFollower(actor: String, followID: String?, ofUserID userID: Int64?) throws(InboxActionError) {
        state.withLock { state in
            for user in state.followers.keys where userID == nil || user == userID {
                if let kept = state.followers[user]?[actor], followID == nil || kept.follower.followID == followID {
                    state.followers[user]?[actor] = nil
                }
            }
        }
    }

    func addResponse(_ response: InboxResponse) throws(InboxActionError) {
        state.withLock { state in
            state.responses.removeAll { $0.actor == response.actor && $0.activityID == response.activityID }
            state.responses.append(response)
        }
        guard response.kind == .reply else { return }
        let target = base + "alice/\(response.postID).html"
        guard case .success(let mention) = service.receiveWebmention(source: response.content.source, target: target, hosts: [])
        else { throw .storage(CocoaError(.fileWriteUnknown)) }
        do {
            try service.storeWebmentionVerification(id: mention.id, content: WebmentionContent(
                kind: .reply, authorName: response.content.authorName, authorURL: response.content.authorURL,
                title: response.content.title, text: response.content.text))
        } catch { throw .storage(error) }
        state.withLock { $0.webmentions[response.activityID] = mention.id }
    }

    func updateResponse(objectID: String, actor: String, content: InboxResponse.Content) throws(InboxActionError) {
        let mention: Int64? = state.withLock { state in
            for index in state.responses.indices where state.responses[index].actor == actor
                && state.responses[index].activityID == objectID {
                state.responses[index].content = content
            }
            return state.webmentions[objectID]
        }
        guard let mention else { return }
        do {
            try service.storeWebmentionVerification(id: mention, content: WebmentionContent(
                kind: .reply, authorName: content.authorName, authorURL: content.authorURL, title: content.title,
                text: content.text))
        } catch { throw .storage(error) }
    }

    func removeResponses(actor: String, id: String) throws(InboxActionError) {
        let mention: Int64? = state.withLock { state in
            let had = state.responses.contains { $0.actor == actor && $0.activityID == id }
            state.responses.removeAll { $0.actor == actor && $0.activityID == id }
            return had ? state.webmentions.removeValue(forKey: id) : nil
        }
        if let mention { do { try service.removeWebmention(id: mention, ofUserID: nil) } catch { throw .storage(error) } }
    }

    func removeReactions(actor: String, kind: InboxResponse.Kind, postID: Int64, ofUserID userID: Int64) throws(InboxActionError) {
        state.withLock { $0.responses.removeAll { $0.actor == actor && $0.kind == kind && $0.postID == postID } }
    }

    func removeActor(_ actor: String) throws(InboxActionError) {
        let ids: [String] = state.withLock { state in
            state.removedActors.append(actor)
            for user in state.followers.keys { state.followers[user]?[actor] = nil }
            return state.responses.filter { $0.actor == actor }.map(\.activityID)
        }
        for id in ids { try removeResponses(actor: actor, id: id) }
    }
}
