import BlogApp
import BlogPages
import BlogTestSupport
import BlogWeb
import Foundation
import Testing

/// The documents a fediverse server reads, from the real page server on
/// loopback: WebFinger, NodeInfo, the actor, posts as Notes, the outbox's
/// pages; negotiation both ways on `ap/` URLs and on the pages' own, with
/// the file cache never handing one the other's answer; each address
/// within its budget.
@Suite("ActivityPub discovery and documents")
struct ActivityPubServerTests {
    @Test func webFingerFindsTheBlogAndOnlyOurs() async throws {
        let f = try await ActivityPubFixture()
        f.say("register:alice:pw")
        let found = try await f.get("/.well-known/webfinger?resource=acct%3Aalice%40blog.example")
        #expect(found.status == 200 && found.headers["content-type"] == "application/jrd+json")
        #expect(found.headers["access-control-allow-origin"] == "*")
        let jrd = try ActivityPubFixture.json(found)
        #expect(jrd["subject"] as? String == "acct:alice@blog.example")
        #expect(jrd["aliases"] as? [String] == ["https://blog.example/ap/alice", "https://blog.example/alice.html"])
        let links = try #require(jrd["links"] as? [[String: String]])
        #expect(links.first == ["rel": "self", "type": "application/activity+json", "href": "https://blog.example/ap/alice"])
        #expect(links.last?["rel"] == "http://webfinger.net/rel/profile-page" && links.last?["type"] == "text/html")
        for resource in ["acct:ALICE@Blog.Example", "https://blog.example/ap/alice", "https://blog.example/alice.html"] {
            let answer = try await f.get("/.well-known/webfinger?resource=" + AppFixture.Browser.encode(resource))
            #expect(answer.status == 200, "\(resource)")
            #expect(try ActivityPubFixture.json(answer)["subject"] as? String == "acct:alice@blog.example", "\(resource)")
        }
        for (query, status) in [("resource=acct:bob@blog.example", 404), ("resource=acct:alice@other.example", 404),
                                ("resource=https://other.example/ap/alice", 404), ("resource=acct:a.b@blog.example", 404),
                                ("", 400), ("resource=", 400), ("resource=alice", 400)] {
            let answer = try await f.get("/.well-known/webfinger?" + query)
            #expect(answer.status == status, "\(query)")
            #expect(answer.headers["access-control-allow-origin"] == "*", "\(query)")
        }
        await f.close()
    }

    @Test func nodeInfoCountsUsersAndPosts() async throws {
        let f = try await ActivityPubFixture()
        f.say("register:alice:pw", "register:bob:pw", "newpost:alice:One:a", "newpost:bob:Two:b", "newpost:bob:Three:c")
        let links = try ActivityPubFixture.json(try await f.get("/.well-known/nodeinfo"))
        let hrefs = (links["links"] as? [[String: String]])?.compactMap { $0["href"] }
        #expect(hrefs == ["https://blog.example/nodeinfo/2.1", "https://blog.example/nodeinfo/2.0"])
        for schema in ["2.1", "2.0"] {
            let answer = try await f.get("/nodeinfo/" + schema)
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"]?.hasPrefix("application/json; profile=\"http://nodeinfo.diaspora.software/ns/schema/\(schema)#\"") == true)
            let info = try ActivityPubFixture.json(answer)
            #expect((info["software"] as? [String: String]) == ["name": "blogd", "version": "9.9.9"])
            #expect(info["protocols"] as? [String] == ["activitypub"] && info["openRegistrations"] as? Bool == false)
            let usage = try #require(info["usage"] as? [String: Any])
            #expect((usage["users"] as? [String: Int])?["total"] == 2 && usage["localPosts"] as? Int == 3)
        }
        #expect(try await f.get("/nodeinfo/1.0").status == 404)
        await f.close()
    }

    @Test func theActorAndTheNotesAnswerAsJSON() async throws {
        let f = try await ActivityPubFixture()
        f.say("register:alice:pw", "geopost:alice:48.1374:11.5755:Walk:Out in the #Sun\ntoday", "newpost:alice:Gone:bye")
        let ids = try f.postIDs()
        let (gone, walk) = (ids[0], ids[1])
        f.say("delpost:alice:\(gone)")

        let actor = try await f.get("/ap/alice", accept: ActivityPubFixture.mastodonAccept)
        #expect(actor.status == 200 && actor.headers["content-type"] == "application/activity+json; charset=utf-8")
        #expect(actor.headers["vary"] == "Accept")
        let person = try ActivityPubFixture.json(actor)
        #expect(person["type"] as? String == "Person" && person["id"] as? String == "https://blog.example/ap/alice")
        #expect(person["inbox"] as? String == "https://blog.example/ap/alice/inbox")
        #expect((person["publicKey"] as? [String: String])?["publicKeyPem"] == ActivityPubFixture.pem)
        #expect(person["published"] as? String != nil)
        let upper = try ActivityPubFixture.json(try await f.get("/ap/ALICE", accept: "application/activity+json"))
        #expect(upper["id"] as? String == "https://blog.example/ap/alice", "names compare regardless of case; the id is the blog's")

        let note = try ActivityPubFixture.json(try await f.get("/ap/alice/posts/\(walk)", accept: "application/activity+json"))
        #expect(note["type"] as? String == "Note" && note["id"] as? String == "https://blog.example/ap/alice/posts/\(walk)")
        #expect(note["url"] as? String == "https://blog.example/alice/\(walk).html")
        #expect((note["content"] as? String)?.hasPrefix("<p><strong>Walk</strong></p><p>Out in the ") == true)
        #expect((note["tag"] as? [[String: String]])?.first?["name"] == "#sun")
        #expect((note["location"] as? [String: Any])?["latitude"] as? Double == 48.1374)

        let tombstone = try await f.get("/ap/alice/posts/\(gone)", accept: "application/activity+json")
        #expect(tombstone.status == 410)
        let dead = try ActivityPubFixture.json(tombstone)
        #expect(dead["type"] as? String == "Tombstone" && dead["formerType"] as? String == "Note")
        #expect(dead["id"] as? String == "https://blog.example/ap/alice/posts/\(gone)")

        let followers = try ActivityPubFixture.json(try await f.get("/ap/alice/followers", accept: "application/activity+json"))
        #expect(followers["totalItems"] as? Int == 7 && followers["type"] as? String == "OrderedCollection")
        let following = try ActivityPubFixture.json(try await f.get("/ap/alice/following", accept: "application/activity+json"))
        #expect(following["totalItems"] as? Int == 0)

        for path in ["/ap/nobody", "/ap/nobody/posts/1", "/ap/alice/posts/999999", "/ap/nobody/outbox",
                     "/ap/alice/posts/0\(walk)", "/ap/alice/other"] {
            #expect(try await f.get(path, accept: "application/activity+json").status == 404, "\(path)")
        }
        f.say("register:bob:pw")
        #expect(try await f.get("/ap/bob/posts/\(walk)", accept: "application/activity+json").status == 404,
                "another blog's post is not bob's")
        #expect(try await f.get("/ap/alice", accept: "application/activity+json", method: "POST").status == 405)
        #expect(!f.pages.handles(path: "/ap/alice/inbox") && !f.pages.handles(path: "/ap/inbox"), "the inboxes are not ours")
        await f.close()
    }

    /// 45 posts over page groups of 7: three outbox pages of Creates,
    /// newest first, every post once.
    @Test func theOutboxPagesEveryPostOnceNewestFirst() async throws {
        let f = try await ActivityPubFixture(pageSize: 7)
        f.say("register:alice:pw")
        for index in 0..<45 { f.say("newpost:alice:Post \(index):text \(index)") }
        let ids = try f.postIDs()
        let outbox = try ActivityPubFixture.json(try await f.get("/ap/alice/outbox", accept: "application/activity+json"))
        #expect(outbox["type"] as? String == "OrderedCollection" && outbox["totalItems"] as? Int == 45)
        #expect(outbox["first"] as? String == "https://blog.example/ap/alice/outbox?page=1")
        #expect(outbox["last"] as? String == "https://blog.example/ap/alice/outbox?page=3")
        var seen: [Int64] = []
        var next = outbox["first"] as? String
        var pages = 0
        while let url = next {
            let page = try ActivityPubFixture.json(try await f.get(String(url.dropFirst(ActivityPubFixture.base.count - 1)),
                                                                    accept: "application/activity+json"))
            pages += 1
            #expect(page["type"] as? String == "OrderedCollectionPage")
            #expect(page["partOf"] as? String == "https://blog.example/ap/alice/outbox")
            let items = try #require(page["orderedItems"] as? [[String: Any]])
            #expect(items.allSatisfy { $0["type"] as? String == "Create" })
            seen += items.compactMap { ($0["object"] as? [String: Any])?["id"] as? String }
                .compactMap { Int64($0.split(separator: "/").last!) }
            next = page["next"] as? String
        }
        #expect(pages == 3)
        #expect(seen == ids, "every post once, newest first")
        #expect(try await f.get("/ap/alice/outbox?page=4", accept: "application/activity+json").status == 404)
        #expect(try await f.get("/ap/alice/outbox?page=0", accept: "application/activity+json").status == 400)
        #expect(try await f.get("/ap/alice/outbox?page=x", accept: "application/activity+json").status == 400)
        await f.close()
    }

    /// A browser at an `ap/` URL goes to the page; a fediverse server at a
    /// page's URL gets the JSON; neither ever gets the other's answer from
    /// the page server's cache, and every page says it varies by Accept.
    @Test func negotiationGoesBothWaysAndTheCacheKeepsThemApart() async throws {
        let f = try await ActivityPubFixture()
        f.say("register:alice:pw", "newpost:alice:Hello:First #post")
        let id = try #require(try f.postIDs().first)

        for accept in [ActivityPubFixture.browserAccept, "text/html", nil] as [String?] {
            let actor = try await f.get("/ap/alice", accept: accept)
            #expect(actor.status == 303 && actor.headers["location"] == "https://blog.example/alice.html", "\(accept ?? "none")")
            let post = try await f.get("/ap/alice/posts/\(id)", accept: accept)
            #expect(post.status == 303 && post.headers["location"] == "https://blog.example/alice/\(id).html")
            #expect(post.headers["vary"] == "Accept")
        }
        for accept in ["application/activity+json", "application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\"",
                       "application/ld+json", "application/json", "*/*", "text/html;q=0.5, application/activity+json"] {
            #expect(try await f.get("/ap/alice", accept: accept).status == 200, "\(accept)")
        }

        // The pages, in turns, so that each answer follows the other's in the cache.
        let actorJSON = try await f.get("/ap/alice", accept: "application/activity+json").body
        let noteJSON = try await f.get("/ap/alice/posts/\(id)", accept: "application/activity+json").body
        var etag: String?
        for round in 0..<3 {
            for (path, json) in [("/alice.html", actorJSON), ("/alice/\(id).html", noteJSON)] {
                let html = try await f.get(path, accept: ActivityPubFixture.browserAccept)
                #expect(html.status == 200 && html.headers["content-type"] == "text/html; charset=utf-8", "\(path) \(round)")
                #expect(html.headers["vary"] == "Accept, Accept-Encoding")
                #expect(html.text.hasPrefix("<!DOCTYPE html>"))
                if path == "/alice.html" { etag = html.headers["etag"] }
                let fediverse = try await f.get(path, accept: ActivityPubFixture.mastodonAccept)
                #expect(fediverse.status == 200 && fediverse.headers["content-type"] == "application/activity+json; charset=utf-8",
                        "\(path) \(round)")
                #expect(fediverse.body == json, "the page's URL answers its ap/ URL's JSON")
                #expect(fediverse.headers["vary"] == "Accept")
                let plain = try await f.get(path)
                #expect(plain.status == 200 && plain.text.hasPrefix("<!DOCTYPE html>"), "no Accept: the page")
                let json = try await f.get(path, accept: "application/json")
                #expect(json.text.hasPrefix("<!DOCTYPE html>"), "a page's JSON is for ActivityPub types only")
            }
        }
        // The browser's copy is current; a fediverse server naming its tag still gets JSON, never a 304.
        let tag = try #require(etag)
        #expect(try await f.get("/alice.html", accept: ActivityPubFixture.browserAccept, extra: ["If-None-Match": tag]).status == 304)
        let conditional = try await f.get("/alice.html", accept: "application/activity+json", extra: ["If-None-Match": tag])
        #expect(conditional.status == 200 && conditional.body == actorJSON)

        // Each page links its JSON; a page with no JSON is left to the files.
        let page = try await f.get("/alice.html", accept: "text/html").text
        #expect(page.contains("<link rel=\"alternate\" type=\"application/activity+json\" href=\"https://blog.example/ap/alice\">"))
        let postPage = try await f.get("/alice/\(id).html", accept: "text/html").text
        #expect(postPage.contains(
            "<link rel=\"alternate\" type=\"application/activity+json\" href=\"https://blog.example/ap/alice/posts/\(id)\">"))
        let rebuilt = try String(contentsOf: f.blog.publicFolder.appendingPathComponent("alice/\(id).html"), encoding: .utf8)
        #expect(rebuilt == postPage, "the file on disk carries the link")
        for path in ["/index.html", "/alice.1.html", "/tags/post", "/nobody/1.html"] {
            let answer = try await f.get(path, accept: "application/activity+json")
            #expect(answer.headers["content-type"]?.hasPrefix("application/activity+json") != true, "\(path)")
        }
        #expect(try await f.get("/nobody.html", accept: "application/activity+json").status == 404)
        // A deleted post's page: 410 both ways.
        f.say("delpost:alice:\(id)")
        #expect(try await f.get("/alice/\(id).html", accept: "text/html").status == 410)
        let tombstone = try await f.get("/alice/\(id).html", accept: "application/activity+json")
        #expect(tombstone.status == 410)
        #expect(try ActivityPubFixture.json(tombstone)["type"] as? String == "Tombstone")
        await f.close()
    }

    /// One address asking as fast as it can: 429 with Retry-After once its
    /// burst is spent, another address unaffected, and again once time passes.
    @Test func eachAddressHasItsBudget() async throws {
        let f = try await ActivityPubFixture(perSecond: 1, burst: 3)
        f.say("register:alice:pw")
        for _ in 0..<3 { #expect(try await f.get("/ap/alice", accept: "application/activity+json").status == 200) }
        let refused = try await f.get("/.well-known/webfinger?resource=acct:alice@blog.example")
        #expect(refused.status == 429 && refused.headers["retry-after"] == "1")
        #expect(try await f.get("/alice.html", accept: "application/activity+json").status == 429, "the pages' JSON too")
        #expect(try await f.get("/ap/alice", accept: "text/html").status == 303, "a browser's redirect costs nothing")
        #expect(try await f.get("/alice.html", accept: "text/html").status == 200, "the page itself is the files'")
        let other = f.pages.respond(to: WebRequest(method: .get, path: "/ap/alice", headers: [.accept: "application/activity+json"],
                                                   peerAddress: "198.51.100.9"))
        #expect(other.status == .ok)
        f.blog.clock.advance(by: 2)
        #expect(try await f.get("/ap/alice", accept: "application/activity+json").status == 200)
        await f.close()
    }

    @Test func theAcceptFieldIsReadAsRFC9110Says() {
        #expect(ActivityAccept.wantsJSON("application/activity+json", page: true))
        #expect(ActivityAccept.wantsJSON("Application/LD+JSON; profile=\"https://www.w3.org/ns/activitystreams\"", page: true))
        #expect(ActivityAccept.wantsJSON(ActivityPubFixture.mastodonAccept, page: true))
        #expect(!ActivityAccept.wantsJSON(ActivityPubFixture.browserAccept, page: true))
        #expect(!ActivityAccept.wantsJSON("application/json", page: true))
        #expect(!ActivityAccept.wantsJSON("*/*", page: true))
        #expect(!ActivityAccept.wantsJSON("text/html, application/activity+json;q=0.9", page: true))
        #expect(!ActivityAccept.wantsJSON("application/activity+json;q=0", page: true))
        #expect(!ActivityAccept.wantsJSON(nil) && !ActivityAccept.wantsJSON(""))
        #expect(ActivityAccept.wantsJSON("*/*") && ActivityAccept.wantsJSON("application/json"))
        #expect(!ActivityAccept.wantsJSON(ActivityPubFixture.browserAccept))
        #expect(!ActivityAccept.wantsJSON("text/*, application/json;q=0.5"))
        #expect(!ActivityAccept.wantsJSON("garbage, ;;, /, a/"))
    }
}
