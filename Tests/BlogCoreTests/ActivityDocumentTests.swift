import BlogModel
import BlogPages
import BlogWire
import Foundation
import Testing

/// The ActivityPub documents as values: each one's JSON, parsed back by
/// Foundation's parser (not ours), field by field.
@Suite("ActivityPub documents")
struct ActivityDocumentTests {
    let urls = ActivityURLs(base: "https://blog.example/")
    static let pem = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----\n"

    /// `document` through JSONSerialization, as a dictionary.
    static func parsed(_ document: ActivityJSON) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(document.bytes)) as? [String: Any])
    }

    static func post(id: Int64 = 17, title: String = "Walk", content: String, photos: [PostPhoto] = [],
                     place: Place? = nil, categories: [String] = [], updated: Date? = nil) -> PostRecord {
        PostRecord(id: id, userID: 1, title: title, content: content, createdAt: Date(timeIntervalSince1970: 1_790_000_000),
                   weight: 1, updatedAt: updated, place: place, photos: photos, categories: categories)
    }

    @Test func theURLsAreTheSitesRule() {
        #expect(urls.actor("alice") == "https://blog.example/ap/alice")
        #expect(urls.key("alice") == "https://blog.example/ap/alice#main-key")
        #expect(urls.inbox("alice") == "https://blog.example/ap/alice/inbox")
        #expect(urls.sharedInbox == "https://blog.example/ap/inbox")
        #expect(urls.outbox("alice") == "https://blog.example/ap/alice/outbox")
        #expect(urls.followers("alice") == "https://blog.example/ap/alice/followers")
        #expect(urls.following("alice") == "https://blog.example/ap/alice/following")
        #expect(urls.object("alice", id: 17) == "https://blog.example/ap/alice/posts/17")
        #expect(urls.page("alice", id: 17) == "https://blog.example/alice/17.html")
        #expect(urls.page("alice") == "https://blog.example/alice.html")
        #expect(ActivityURLs(base: "https://blog.example").base == "https://blog.example/")
    }

    @Test func theActorIsAPersonWithItsKeyAndInboxes() throws {
        let settings = try BlogSettings(title: "Notes", description: "Walks & <bread>", authorName: "Alice A.",
                                        authorPhoto: "photos/me.png")
        let actor = ActorDocument(user: "alice", settings: settings, publicKeyPEM: Self.pem, manuallyApprovesFollowers: true,
                                  published: Date(timeIntervalSince1970: 1_700_000_000), urls: urls)
        let json = try Self.parsed(actor.document)
        let context = try #require(json["@context"] as? [Any])
        #expect(context[0] as? String == "https://www.w3.org/ns/activitystreams")
        #expect(context[1] as? String == "https://w3id.org/security/v1")
        #expect(json["id"] as? String == "https://blog.example/ap/alice")
        #expect(json["type"] as? String == "Person")
        #expect(json["preferredUsername"] as? String == "alice")
        #expect(json["name"] as? String == "Alice A.")
        #expect(json["summary"] as? String == "Walks &amp; &lt;bread&gt;", "escaped text: a server shows it as HTML")
        #expect(json["url"] as? String == "https://blog.example/alice.html")
        let icon = try #require(json["icon"] as? [String: Any])
        #expect(icon["type"] as? String == "Image" && icon["mediaType"] as? String == "image/png")
        #expect(icon["url"] as? String == "https://blog.example/photos/me.png")
        #expect(json["inbox"] as? String == "https://blog.example/ap/alice/inbox")
        #expect(json["outbox"] as? String == "https://blog.example/ap/alice/outbox")
        #expect(json["followers"] as? String == "https://blog.example/ap/alice/followers")
        #expect(json["following"] as? String == "https://blog.example/ap/alice/following")
        #expect((json["endpoints"] as? [String: Any])?["sharedInbox"] as? String == "https://blog.example/ap/inbox")
        let key = try #require(json["publicKey"] as? [String: Any])
        #expect(key["id"] as? String == "https://blog.example/ap/alice#main-key")
        #expect(key["owner"] as? String == "https://blog.example/ap/alice")
        #expect(key["publicKeyPem"] as? String == Self.pem)
        #expect(json["discoverable"] as? Bool == true)
        #expect(json["manuallyApprovesFollowers"] as? Bool == true)
        #expect(json["published"] as? String == "2023-11-14T22:13:20Z")

        // Nothing set: the user's name, no summary, no icon; follows accepted.
        let plain = try Self.parsed(ActorDocument(user: "bob", publicKeyPEM: Self.pem, urls: urls).document)
        #expect(plain["name"] as? String == "bob" && plain["summary"] == nil && plain["icon"] == nil)
        #expect(plain["manuallyApprovesFollowers"] as? Bool == false && plain["published"] == nil)
        let jpeg = try BlogSettings(authorPhoto: "photos/3f.jpg")
        let icon2 = try #require(try Self.parsed(ActorDocument(user: "c", settings: jpeg, publicKeyPEM: "", urls: urls).document)["icon"]
            as? [String: Any])
        #expect(icon2["mediaType"] as? String == "image/jpeg")
    }

    @Test func aPostIsANoteWithItsPhotosTagsAndPlace() throws {
        let photo = PostPhoto(name: String(repeating: "ab", count: 16), width: 2048, height: 1536, thumbnailWidth: 480,
                              thumbnailHeight: 360, alt: "A \"red\" <door>")
        let post = Self.post(content: "Out at https://example.com/a?b=1&c=2 #Walk\nsecond <line>", photos: [photo],
                             place: try Place(latitude: "48.1374", longitude: "-11.5"), categories: ["bread"],
                             updated: Date(timeIntervalSince1970: 1_790_000_600))
        let note = NoteDocument(post: post, user: "alice", urls: urls)
        let json = try Self.parsed(note.document)
        #expect((json["@context"] as? [Any])?.first as? String == "https://www.w3.org/ns/activitystreams")
        #expect(json["id"] as? String == "https://blog.example/ap/alice/posts/17")
        #expect(json["type"] as? String == "Note")
        #expect(json["attributedTo"] as? String == "https://blog.example/ap/alice")
        #expect(json["url"] as? String == "https://blog.example/alice/17.html")
        #expect(json["published"] as? String == "2026-09-21T14:13:20Z")
        #expect(json["updated"] as? String == "2026-09-21T14:23:20Z")
        #expect(json["to"] as? [String] == ["https://www.w3.org/ns/activitystreams#Public"])
        #expect(json["cc"] as? [String] == ["https://blog.example/ap/alice/followers"])
        #expect(json["sensitive"] as? Bool == false)
        let content = try #require(json["content"] as? String)
        #expect(content.hasPrefix("<p><strong>Walk</strong></p><p>Out at "))
        #expect(content.contains("<a href=\"https://example.com/a?b=1&amp;c=2\">https://example.com/a?b=1&amp;c=2</a>"))
        #expect(content.contains("href=\"https://blog.example/tags/walk\">#Walk</a>"), "\(content)")
        #expect(content.contains("<br>second &lt;line&gt;"))
        #expect(content.contains("href=\"https://blog.example/tags/bread\">#bread</a>"), "a tag beside the text is shown too")
        let attachment = try #require((json["attachment"] as? [[String: Any]])?.first)
        #expect(attachment["type"] as? String == "Image" && attachment["mediaType"] as? String == "image/jpeg")
        #expect(attachment["url"] as? String == "https://blog.example/photos/\(photo.name).jpg")
        #expect(attachment["name"] as? String == "A \"red\" <door>", "the alt text, as text")
        #expect(attachment["width"] as? Int == 2048 && attachment["height"] as? Int == 1536)
        let tags = try #require(json["tag"] as? [[String: Any]])
        #expect(tags.map { $0["type"] as? String } == ["Hashtag", "Hashtag"])
        #expect(tags.map { $0["name"] as? String } == ["#walk", "#bread"])
        #expect(tags.map { $0["href"] as? String } == ["https://blog.example/tags/walk", "https://blog.example/tags/bread"])
        let location = try #require(json["location"] as? [String: Any])
        #expect(location["type"] as? String == "Place" && location["name"] as? String == "48.1374, -11.5")
        #expect(location["latitude"] as? Double == 48.1374 && location["longitude"] as? Double == -11.5)
        // The bytes keep the coordinates as sent, and no markup escapes a string.
        let text = String(decoding: note.document.bytes, as: UTF8.self)
        #expect(text.contains("\"latitude\":48.1374,\"longitude\":-11.5"))
        #expect(!text.contains("<") && !text.contains(">"), "< and > are \\u003c, \\u003e in the JSON")

        // No title, no photo, no tag, no place, never edited: those fields are left out.
        let bare = try Self.parsed(NoteDocument(post: Self.post(title: "", content: "hi"), user: "alice", urls: urls).document)
        #expect(bare["content"] as? String == "<p>hi</p>")
        for key in ["updated", "attachment", "tag", "location"] { #expect(bare[key] == nil, "\(key)") }
    }

    @Test func theActivitiesCarryTheSitesIDs() throws {
        let note = NoteDocument(post: Self.post(content: "hi"), user: "alice", urls: urls)
        let create = try Self.parsed(ActivityDocuments.create(note: note))
        #expect(create["@context"] != nil)
        #expect(create["id"] as? String == "https://blog.example/ap/alice/posts/17#create")
        #expect(create["type"] as? String == "Create" && create["actor"] as? String == "https://blog.example/ap/alice")
        #expect(create["to"] as? [String] == ["https://www.w3.org/ns/activitystreams#Public"])
        #expect(create["cc"] as? [String] == ["https://blog.example/ap/alice/followers"])
        let object = try #require(create["object"] as? [String: Any])
        #expect(object["id"] as? String == note.id && object["@context"] == nil, "an embedded object has no context")

        let edited = Date(timeIntervalSince1970: 1_790_000_123.456)
        let update = try Self.parsed(ActivityDocuments.update(note: note, at: edited))
        #expect(update["id"] as? String == "https://blog.example/ap/alice/posts/17#update-1790000123456")
        #expect(update["type"] as? String == "Update" && (update["object"] as? [String: Any])?["type"] as? String == "Note")

        let delete = try Self.parsed(ActivityDocuments.delete(postID: 17, user: "alice", urls: urls, at: edited))
        #expect(delete["id"] as? String == "https://blog.example/ap/alice/posts/17#delete")
        #expect(delete["type"] as? String == "Delete")
        let tombstone = try #require(delete["object"] as? [String: Any])
        #expect(tombstone["id"] as? String == "https://blog.example/ap/alice/posts/17")
        #expect(tombstone["type"] as? String == "Tombstone" && tombstone["formerType"] as? String == "Note")
        #expect(tombstone["deleted"] as? String == "2026-09-21T14:15:23Z")

        let follow = "https://social.example/5c1f0a2e-follow"
        let accept = try Self.parsed(ActivityDocuments.accept(followID: follow, follower: "https://social.example/users/bob",
                                                             user: "alice", urls: urls))
        let id = try #require(accept["id"] as? String)
        #expect(id.hasPrefix("https://blog.example/ap/alice#accept-") && id.count == "https://blog.example/ap/alice#accept-".count + 16)
        #expect(id == ActivityDocuments.acceptID(followID: follow, user: "alice", urls: urls), "the same each time")
        #expect(id != ActivityDocuments.acceptID(followID: follow + "x", user: "alice", urls: urls))
        #expect(accept["type"] as? String == "Accept" && accept["actor"] as? String == "https://blog.example/ap/alice")
        let followed = try #require(accept["object"] as? [String: Any])
        #expect(followed["id"] as? String == follow && followed["type"] as? String == "Follow")
        #expect(followed["actor"] as? String == "https://social.example/users/bob")
        #expect(followed["object"] as? String == "https://blog.example/ap/alice")
    }

    @Test func theOutboxIsPagedNewestFirst() throws {
        let outbox = try Self.parsed(CollectionDocuments.outbox(user: "alice", totalItems: 45, urls: urls))
        #expect(outbox["type"] as? String == "OrderedCollection" && outbox["totalItems"] as? Int == 45)
        #expect(outbox["first"] as? String == "https://blog.example/ap/alice/outbox?page=1")
        #expect(outbox["last"] as? String == "https://blog.example/ap/alice/outbox?page=3")
        let empty = try Self.parsed(CollectionDocuments.outbox(user: "alice", totalItems: 0, urls: urls))
        #expect(empty["last"] as? String == "https://blog.example/ap/alice/outbox?page=1")

        let notes = [Self.post(id: 9, content: "b"), Self.post(id: 8, content: "a")].map {
            NoteDocument(post: $0, user: "alice", urls: urls)
        }
        let middle = try Self.parsed(CollectionDocuments.outboxPage(user: "alice", number: 2, totalItems: 45, notes: notes, urls: urls))
        #expect(middle["type"] as? String == "OrderedCollectionPage")
        #expect(middle["partOf"] as? String == "https://blog.example/ap/alice/outbox")
        #expect(middle["next"] as? String == "https://blog.example/ap/alice/outbox?page=3")
        #expect(middle["prev"] as? String == "https://blog.example/ap/alice/outbox?page=1")
        let items = try #require(middle["orderedItems"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == ["https://blog.example/ap/alice/posts/9#create",
                                                      "https://blog.example/ap/alice/posts/8#create"])
        let last = try Self.parsed(CollectionDocuments.outboxPage(user: "alice", number: 3, totalItems: 45, notes: [], urls: urls))
        #expect(last["next"] == nil && last["prev"] != nil)

        let followers = try Self.parsed(CollectionDocuments.followers(user: "alice", count: 12, urls: urls))
        #expect(followers["id"] as? String == "https://blog.example/ap/alice/followers")
        #expect(followers["type"] as? String == "OrderedCollection" && followers["totalItems"] as? Int == 12)
        #expect(followers["orderedItems"] == nil && followers["first"] == nil, "who follows is not shown")
        #expect(try Self.parsed(CollectionDocuments.following(user: "alice", urls: urls))["totalItems"] as? Int == 0)
    }

    @Test func webFingerNamesTheBlogsOfThisHostOnly() throws {
        let finger = WebFingerDocument(urls: urls)
        #expect(finger.user(in: "acct:alice@blog.example") == .user("alice"))
        #expect(finger.user(in: "acct:Alice@BLOG.example") == .user("Alice"))
        #expect(finger.user(in: "alice@blog.example") == .user("alice"))
        #expect(finger.user(in: "acct:@alice@blog.example") == .user("alice"))
        #expect(finger.user(in: "https://blog.example/ap/alice") == .user("alice"))
        #expect(finger.user(in: "https://blog.example/alice.html") == .user("alice"))
        #expect(finger.user(in: "acct:alice@other.example") == .elsewhere)
        #expect(finger.user(in: "https://other.example/ap/alice") == .elsewhere)
        #expect(finger.user(in: "https://blog.example/alice/17.html") == .elsewhere)
        #expect(finger.user(in: "acct:alice") == .malformed)
        #expect(finger.user(in: "acct:@blog.example") == .malformed)
        #expect(WebFingerDocument(urls: ActivityURLs(base: "http://localhost:8080/")).host == "localhost:8080")
        #expect(WebFingerDocument(urls: ActivityURLs(base: "https://Blog.Example:443/")).host == "blog.example")

        let json = try Self.parsed(finger.document(user: "alice"))
        #expect(json["subject"] as? String == "acct:alice@blog.example")
        #expect(json["aliases"] as? [String] == ["https://blog.example/ap/alice", "https://blog.example/alice.html"])
        let links = try #require(json["links"] as? [[String: String]])
        #expect(links == [
            ["rel": "self", "type": "application/activity+json", "href": "https://blog.example/ap/alice"],
            ["rel": "http://webfinger.net/rel/profile-page", "type": "text/html", "href": "https://blog.example/alice.html"],
        ])
        let selfOnly = try Self.parsed(finger.document(user: "alice", rels: ["self"]))
        #expect((selfOnly["links"] as? [Any])?.count == 1)
    }

    @Test func nodeInfoSaysWhatServesTheSite() throws {
        let links = try Self.parsed(NodeInfoDocument.links(urls: urls))
        #expect((links["links"] as? [[String: String]]) == [
            ["rel": "http://nodeinfo.diaspora.software/ns/schema/2.1", "href": "https://blog.example/nodeinfo/2.1"],
            ["rel": "http://nodeinfo.diaspora.software/ns/schema/2.0", "href": "https://blog.example/nodeinfo/2.0"],
        ])
        for schema in NodeInfoDocument.schemas {
            let info = NodeInfoDocument(version: "0.17.0", users: 3, localPosts: 41, openRegistrations: false)
            let json = try Self.parsed(info.document(schema: schema))
            #expect(json["version"] as? String == schema)
            #expect((json["software"] as? [String: String]) == ["name": "blogd", "version": "0.17.0"])
            #expect(json["protocols"] as? [String] == ["activitypub"])
            #expect(json["openRegistrations"] as? Bool == false)
            let usage = try #require(json["usage"] as? [String: Any])
            #expect((usage["users"] as? [String: Int])?["total"] == 3 && usage["localPosts"] as? Int == 41)
            #expect(json["services"] != nil && json["metadata"] != nil, "required by both schemas")
        }
    }

    @Test func jsonStringsAreEscapedAsTheRFCSays() throws {
        let tricky = "quote \" backslash \\ tab \t nl \n nul \u{0} del \u{7F} </script> & é 😀 \u{2028}"
        let document: ActivityJSON = .object([("s", .string(tricky)), ("n", .null), ("a", .array([1, true]))])
        let json = try Self.parsed(document)
        #expect(json["s"] as? String == tricky)
        #expect(json["n"] is NSNull && (json["a"] as? [Any])?.count == 2)
        let text = String(decoding: document.bytes, as: UTF8.self)
        #expect(text.contains("\\u003c/script\\u003e \\u0026") && text.contains("\\u0000") && text.contains("é 😀"))
    }
}
