import BlogApp
import Foundation
import Testing

/// The inbox's reading of an activity: every kind it acts on, the shapes
/// servers send (embedded objects or ids), and hostile bodies refused
/// with the reason.
@Suite struct InboundActivityTests {
    static let bob = "https://social.example/users/bob"
    static let alice = "https://blog.example/ap/alice"
    static let post = "https://blog.example/ap/alice/posts/7"

    static func parse(_ json: String) -> Result<InboundActivity, InboundActivityError> {
        Result { () throws(InboundActivityError) in try InboundActivity.parse(Array(json.utf8)) }
    }

    static func activity(_ fields: [String: Any]) -> String {
        var all: [String: Any] = ["@context": "https://www.w3.org/ns/activitystreams", "actor": bob,
                                  "id": "https://social.example/activities/1"]
        all.merge(fields) { $1 }
        let data = try! JSONSerialization.data(withJSONObject: all, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    @Test func follow() {
        let parsed = Self.parse(Self.activity(["type": "Follow", "object": Self.alice]))
        #expect(parsed == .success(.follow(id: "https://social.example/activities/1", actor: Self.bob, object: Self.alice)))
        let embeddedActor = Self.parse(Self.activity(["type": "Follow", "object": ["id": Self.alice, "type": "Person"],
                                                      "actor": ["id": Self.bob, "type": "Person", "name": "Bob"]]))
        #expect(embeddedActor == .success(.follow(id: "https://social.example/activities/1", actor: Self.bob, object: Self.alice)))
        let typeList = Self.parse(Self.activity(["type": ["Follow"], "object": Self.alice]))
        #expect(typeList.map(\.actor) == .success(Self.bob), "JSON-LD allows a list of types")
    }

    @Test func undoFollowEmbeddedOrByID() {
        let follow: [String: Any] = ["type": "Follow", "id": "https://social.example/f/1", "actor": Self.bob, "object": Self.alice]
        #expect(Self.parse(Self.activity(["type": "Undo", "object": follow]))
            == .success(.undoFollow(id: "https://social.example/activities/1", actor: Self.bob,
                                    followID: "https://social.example/f/1", object: Self.alice)))
        #expect(Self.parse(Self.activity(["type": "Undo", "object": "https://social.example/f/1"]))
            == .success(.undo(id: "https://social.example/activities/1", actor: Self.bob, objectID: "https://social.example/f/1")))
        var someoneElses = follow
        someoneElses["actor"] = "https://evil.example/users/mallory"
        #expect(Self.parse(Self.activity(["type": "Undo", "object": someoneElses])) == .failure(.notTheActors("object.actor")))
    }

    @Test func createOfAReplyAsText() throws {
        let note: [String: Any] = [
            "id": "https://social.example/notes/9", "type": "Note", "attributedTo": Self.bob, "inReplyTo": Self.post,
            "content": "<p>Great <a href=\"https://x.example/\">post</a>!</p><script>alert(1)</script><p>Second &amp; last</p>",
            "url": "https://social.example/@bob/9", "published": "2026-11-27T10:00:00Z",
        ]
        let parsed = try Self.parse(Self.activity(["type": "Create", "object": note,
                                                   "actor": ["id": Self.bob, "name": "Bob B."]])).get()
        guard case .create(_, let actor, let read) = parsed else { Issue.record("\(parsed)"); return }
        #expect(actor == Self.bob)
        #expect(read.id == "https://social.example/notes/9" && read.inReplyTo == Self.post)
        #expect(read.text == "Great post!\nSecond & last", "markup and scripts dropped, entities decoded")
        #expect(read.authorName == "Bob B." && read.url == "https://social.example/@bob/9")
        #expect(read.published == Date(timeIntervalSince1970: 1_795_773_600))

        var mapped = note
        mapped["content"] = nil
        mapped["contentMap"] = ["en": "<p>in English</p>"]
        mapped["url"] = [["type": "Link", "href": "https://social.example/@bob/9"]]
        guard case .success(.update(_, _, let updated)) = Self.parse(Self.activity(["type": "Update", "object": mapped]))
        else { Issue.record("not an update"); return }
        #expect(updated.text == "in English" && updated.url == "https://social.example/@bob/9")

        let long = note.merging(["content": String(repeating: "a", count: 50_000)]) { $1 }
        guard case .success(.create(_, _, let cut)) = Self.parse(Self.activity(["type": "Create", "object": long]))
        else { Issue.record("not a create"); return }
        #expect(cut.text.count == InboundActivity.textLimit)

        var forged = note
        forged["attributedTo"] = "https://evil.example/users/mallory"
        #expect(Self.parse(Self.activity(["type": "Create", "object": forged])) == .failure(.notTheActors("object.attributedTo")))
        #expect(Self.parse(Self.activity(["type": "Create", "object": note.merging(["content": 5]) { $1 }]))
            == .failure(.wrongType("object.content")))
    }

    @Test func createOfSomethingElseOrByIDIsOther() {
        #expect(Self.parse(Self.activity(["type": "Create", "object": "https://social.example/notes/9"]))
            == .success(.other(type: "Create", actor: Self.bob)))
        #expect(Self.parse(Self.activity(["type": "Update", "object": ["id": Self.bob, "type": "Person"]]))
            == .success(.other(type: "Update", actor: Self.bob)), "a profile update")
        #expect(Self.parse(Self.activity(["type": "Move", "object": Self.bob])) == .success(.other(type: "Move", actor: Self.bob)))
        #expect(Self.parse(Self.activity(["type": "Create"])) == .failure(.missing("object")))
    }

    @Test func deleteOfANoteOrTheActor() {
        #expect(Self.parse(Self.activity(["type": "Delete", "object": "https://social.example/notes/9"]))
            == .success(.delete(id: "https://social.example/activities/1", actor: Self.bob, object: "https://social.example/notes/9")))
        #expect(Self.parse(Self.activity(["type": "Delete", "object": ["type": "Tombstone", "id": "https://social.example/notes/9"]]))
            == .success(.delete(id: "https://social.example/activities/1", actor: Self.bob, object: "https://social.example/notes/9")))
        #expect(Self.parse(Self.activity(["type": "Delete", "object": Self.bob]))
            == .success(.deleteActor(id: "https://social.example/activities/1", actor: Self.bob)))
    }

    @Test func likeAnnounceAndTheirUndo() {
        #expect(Self.parse(Self.activity(["type": "Like", "object": Self.post]))
            == .success(.reaction(.like, id: "https://social.example/activities/1", actor: Self.bob, object: Self.post)))
        #expect(Self.parse(Self.activity(["type": "Announce", "object": ["id": Self.post, "type": "Note"]]))
            == .success(.reaction(.announce, id: "https://social.example/activities/1", actor: Self.bob, object: Self.post)))
        let like: [String: Any] = ["type": "Like", "id": "https://social.example/likes/4", "actor": Self.bob, "object": Self.post]
        #expect(Self.parse(Self.activity(["type": "Undo", "object": like]))
            == .success(.undoReaction(.like, id: "https://social.example/activities/1", actor: Self.bob,
                                      reactionID: "https://social.example/likes/4", object: Self.post)))
        #expect(Self.parse(Self.activity(["type": "Undo", "object": ["type": "Block", "object": Self.alice]]))
            == .success(.other(type: "Undo", actor: Self.bob)))
    }

    @Test func hostileShapesAreRefusedWithTheReason() {
        let cases: [(String, InboundActivityError)] = [
            ("", .notAnObject),
            ("not json", .notAnObject),
            ("[1,2,3]", .notAnObject),
            ("\"Follow\"", .notAnObject),
            (String(repeating: "[", count: 100_000), .tooDeep),
            (Self.activity(["type": "Follow", "object": Self.alice, "x": Array(repeating: "aaaa", count: 60_000)]), .tooLarge),
            (Self.activity(["object": Self.alice]), .missing("type")),
            (Self.activity(["type": 7, "object": Self.alice]), .wrongType("type")),
            (Self.activity(["type": [7], "object": Self.alice]), .wrongType("type")),
            (Self.activity(["type": "Follow", "actor": NSNull(), "object": Self.alice]), .missing("actor")),
            (Self.activity(["type": "Follow", "actor": 12, "object": Self.alice]), .wrongType("actor")),
            (Self.activity(["type": "Follow", "actor": [Self.bob, Self.bob], "object": Self.alice]), .wrongType("actor")),
            (Self.activity(["type": "Follow", "actor": ["name": "no id"], "object": Self.alice]), .missing("actor.id")),
            (Self.activity(["type": "Follow", "actor": "javascript:alert(1)", "object": Self.alice]), .notAURL("actor")),
            (Self.activity(["type": "Follow", "actor": "https://social.example/" + String(repeating: "a", count: 3000),
                            "object": Self.alice]), .notAURL("actor")),
            (Self.activity(["type": "Follow", "id": NSNull(), "object": Self.alice]), .missing("id")),
            (Self.activity(["type": "Follow"]), .missing("object")),
            (Self.activity(["type": "Follow", "object": ["type": "Person"]]), .missing("object.id")),
            (Self.activity(["type": "Like", "object": false]), .wrongType("object")),
            (Self.activity(["type": "Create", "object": ["type": "Note", "id": 3]]), .wrongType("object.id")),
            (Self.activity(["type": "Create", "object": ["type": "Note", "id": "ftp://x.example/1"]]), .notAURL("object.id")),
            (Self.activity(["type": "Create", "object": ["type": "Note", "id": "https://social.example/n/1", "name": []]]),
             .wrongType("object.name")),
            (Self.activity(["type": "Undo", "object": 4]), .wrongType("object")),
            (Self.activity(["type": "Undo"]), .missing("object")),
        ]
        for (body, error) in cases {
            #expect(Self.parse(body) == .failure(error), "\(body.prefix(120))")
            #expect(!error.description.isEmpty)
        }
    }

    @Test func aHugeArrayWithinTheLimitsCostsOnlyItsParse() {
        let tags = Array(repeating: ["type": "Hashtag", "name": "#x"], count: 7_000)
        let body = Self.activity(["type": "Create", "object": ["type": "Note", "id": "https://social.example/n/1",
                                                               "tag": tags, "content": "hi"]])
        #expect(body.utf8.count <= InboundActivity.maxBytes)
        guard case .success(.create(_, _, let note)) = Self.parse(body) else { Issue.record("refused"); return }
        #expect(note.text == "hi")
    }
}
