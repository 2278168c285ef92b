import BlogApp
import BlogCore
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing
import BlogModel

/// Micropub's `category` as tags: kept on create, changed by updates
/// (add, delete, replace), given back by `q=source` with the text's
/// hashtags, refused when a value is no tag.
@Suite
struct MicropubCategoryTests {
    let fixture: MicropubTests

    init() throws { fixture = try MicropubTests() }

    private func source(_ id: Int64) throws -> [String]? {
        let url = AppFixture.base + "alice/\(id).html"
        let answer = fixture.send(.get, query: "q=source&url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        #expect(answer.status == .ok)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        return (object["properties"] as? [String: Any])?["category"] as? [String]
    }

    @Test func createKeepsCategoriesAndSourceGivesEveryTag() throws {
        let id = try fixture.id(fixture.send(body: "h=entry&content=About+%23Swift&category[]=Linux&category[]=%23swift"))
        let post = try #require(try fixture.posts().first)
        #expect(post.id == id && post.categories == ["linux", "swift"] && post.tags == ["swift", "linux"])
        #expect(try source(id) == ["swift", "linux"])
        let page = try #require(fixture.app.file("alice/\(id).html"))
        #expect(page.contains("<a class=\"p-category\" href=\"tags/swift\">#Swift</a>"))
        #expect(page.contains("<p class=\"tags\">Tags: <a class=\"p-category\" href=\"tags/linux\">#linux</a></p>"))
        let json = try fixture.json(["type": ["h-entry"], "properties": ["content": ["J"], "category": ["a", "b"]]])
        #expect(try fixture.posts().first?.categories == ["a", "b"] && json.status == .created)
    }

    @Test func updatesAddDeleteAndReplaceCategories() throws {
        let id = try fixture.id(fixture.send(body: "h=entry&content=Text+%23kept&category=one"))
        let url = AppFixture.base + "alice/\(id).html"
        #expect(try fixture.json(["action": "update", "url": url, "add": ["category": ["two"]]]).status == .noContent)
        #expect(try fixture.posts().first?.categories == ["one", "two"])
        #expect(try fixture.json(["action": "update", "url": url, "delete": ["category": ["one", "kept"]]]).status == .noContent)
        #expect(try fixture.posts().first?.categories == ["two"])
        #expect(try source(id) == ["kept", "two"], "a hashtag in the text stays a tag")
        #expect(try fixture.json(["action": "update", "url": url, "replace": ["category": ["x", "y"]]]).status == .noContent)
        #expect(try fixture.posts().first?.categories == ["x", "y"])
        #expect(try fixture.json(["action": "update", "url": url, "delete": ["category"]]).status == .noContent)
        #expect(try fixture.posts().first?.categories == [])
        #expect(fixture.app.file("alice/\(id).html")?.contains("class=\"tags\"") == false)
    }

    @Test func aValueThatIsNoTagIsRefusedAndChangesNothing() throws {
        for bad in ["https://example.com/person", "two words", "<b>", "123"] {
            let refused = try fixture.json(["type": ["h-entry"], "properties": ["content": ["x"], "category": [bad]]])
            #expect(refused.status == .badRequest && refused.text.contains("is not a tag"))
        }
        let many = (0...Hashtags.maxPerPost).map { "t\($0)" }
        #expect(try fixture.json(["type": ["h-entry"], "properties": ["content": ["x"], "category": many]]).status == .badRequest)
        #expect(try fixture.posts().isEmpty)
        let id = try fixture.id(fixture.send(body: "h=entry&content=Text&category=one"))
        let url = AppFixture.base + "alice/\(id).html"
        #expect(try fixture.json(["action": "update", "url": url, "add": ["category": ["no way"]]]).status == .badRequest)
        #expect(try fixture.posts().first?.categories == ["one"])
    }

    @Test func qCategoryListsTheBlogsTags() throws {
        _ = try fixture.id(fixture.send(body: "h=entry&content=%23swift+and+%23rust&category=linux"))
        _ = try fixture.id(fixture.send(body: "h=entry&content=%23swiftui+again+%23swift"))
        func listed(_ query: String) throws -> [String]? {
            let answer = fixture.send(.get, query: query)
            #expect(answer.status == .ok)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            return object["categories"] as? [String]
        }
        #expect(try listed("q=category") == ["linux", "rust", "swift", "swiftui"])
        #expect(try listed("q=category&filter=Swi") == ["swift", "swiftui"])
        #expect(try listed("q=category&filter=%23sw") == ["swift", "swiftui"])
        #expect(try listed("q=category&filter=zzz") == [])
        #expect(fixture.send(.get, query: "q=category", token: .some(nil)).status == .unauthorized)
    }
}
