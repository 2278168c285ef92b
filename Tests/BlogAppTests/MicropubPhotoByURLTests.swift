import BlogApp
import BlogCore
import BlogFetch
import BlogPhotos
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing
import BlogModel

/// Micropub's photo by URL (3.3.1, micropub.rocks 104/203): a photo on
/// another server is fetched through the bounded fetcher and taken as an
/// upload; one too large, not an image, unreachable or at a private
/// address (when those are not allowed) is refused and no post is made.
@Suite("Micropub photo by URL")
struct MicropubPhotoByURLTests {
    static let limit = 300_000

    /// A blog whose photo fetcher may reach loopback (or not), the photo
    /// limit `limit`, and a host serving `/photo.jpg`, `/big.jpg`,
    /// `/page.html` and nothing else.
    final class Setup: @unchecked Sendable {
        let app: AppFixture
        let host: HTTPStubServer
        let user: UserRecord
        let secret: String

        init(allowPrivate: Bool = true, photo: [UInt8], uploads: UploadBudget = UploadBudget(perMinute: 1000, burst: 1000, concurrent: 4)) throws {
            let fetcher = FetcherHTTP(OutgoingFetcher(settings: FetchSettings(maxBytes: MicropubPhotoByURLTests.limit,
                                                                              allowPrivateAddresses: allowPrivate)))
            app = try AppFixture(uploads: uploads, photoFetcher: fetcher,
                                 photoLimits: PhotoLimits(maxBytes: MicropubPhotoByURLTests.limit))
            host = try HTTPStubServer { request in
                switch request.path {
                case "/photo.jpg": .init(status: 200, headers: [("Content-Type", "image/jpeg")], body: photo)
                case "/big.jpg": .init(status: 200, headers: [("Content-Type", "image/jpeg")],
                                       body: Array(repeating: 0xFF, count: MicropubPhotoByURLTests.limit + 1))
                case "/page.html": .html("<p>not a photo</p>")
                default: .init(status: 404)
                }
            }
            try app.blog.service.moderateAddUser("alice", password: "pw")
            user = try #require(try app.blog.store.user(named: "alice"))
            secret = try app.tokens.issue(userID: user.id, kind: .bearer, scopes: [.create, .media], label: "test",
                                          lifetime: nil).secret
        }

        deinit { host.stop() }

        func create(_ properties: [String: Any]) throws -> WebResponse {
            let body = try JSONSerialization.data(withJSONObject: ["type": ["h-entry"], "properties": properties])
            let headers: HTTPFields = [HTTPField.Name("Host")!: "blog.example", .contentType: "application/json",
                                       .authorization: "Bearer \(secret)"]
            return app.micropub.respond(to: WebRequest(method: .post, path: "/micropub", query: "", headers: headers,
                                                       body: Array(body), peerAddress: "203.0.113.5", secure: true))
        }

        func posts() throws -> [PostRecord] { try app.blog.store.posts(ofUserID: user.id) }

        func description(_ response: WebResponse) -> String {
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            return "\(object?["error"] ?? "") \(object?["error_description"] ?? "")"
        }
    }

    private func jpeg() throws -> [UInt8]? {
        try withTemporaryFolder { (folder: URL) throws in try PhotoUploadTests.photo(in: folder) }
    }

    @Test func aPhotoFromAnotherServerIsStoredAndShown() throws {
        guard let jpeg = try jpeg() else { return }
        let setup = try Setup(photo: jpeg)
        let created = try setup.create(["content": ["A door"],
                                        "photo": [["value": setup.host.url("/photo.jpg"), "alt": "A red door"]]])
        #expect(created.status == .created, "\(setup.description(created))")
        let post = try #require(try setup.posts().first)
        let photo = try #require(post.photos.first)
        #expect(post.photos.count == 1 && photo.alt == "A red door" && photo.width == 640 && photo.height == 480)
        let stored = try #require(try setup.app.blog.store.photoData(name: photo.name))
        #expect(!stored.image.isEmpty && stored.image != jpeg, "processed as an upload: re-encoded, metadata gone")
        let page = try #require(setup.app.file("alice/\(post.id).html"))
        #expect(page.contains(photo.file) && page.contains("alt=\"A red door\""))
        #expect(setup.host.requests.map(\.path) == ["/photo.jpg"])
    }

    @Test func aPhotoTooLargeOrNotAnImageIsRefused() throws {
        guard let jpeg = try jpeg() else { return }
        let setup = try Setup(photo: jpeg)
        let big = try setup.create(["content": ["x"], "photo": [setup.host.url("/big.jpg")]])
        #expect(big.status == .badRequest && setup.description(big).contains("invalid_request"))
        #expect(setup.description(big).contains("over \(Self.limit) bytes"), "\(setup.description(big))")
        let page = try setup.create(["content": ["x"], "photo": [setup.host.url("/page.html")]])
        #expect(page.status == .unsupportedMediaType, "taken as an upload is: \(setup.description(page))")
        let missing = try setup.create(["content": ["x"], "photo": [setup.host.url("/gone.jpg")]])
        #expect(missing.status == .badRequest && setup.description(missing).contains("answered 404"))
        let notHTTP = try setup.create(["content": ["x"], "photo": ["ftp://127.0.0.1/photo.jpg"]])
        #expect(notHTTP.status == .badRequest)
        #expect(try setup.posts().isEmpty)
        #expect(try setup.app.blog.store.photos(ofUserID: setup.user.id).isEmpty)
    }

    /// Each photo by URL spends the address's upload budget before it is
    /// fetched: past it, 429 and no fetch at all.
    @Test func theUploadBudgetIsSpentBeforeTheFetch() throws {
        guard let jpeg = try jpeg() else { return }
        let setup = try Setup(photo: jpeg, uploads: UploadBudget(perMinute: 1, burst: 1, concurrent: 4))
        #expect(try setup.create(["content": ["one"], "photo": [setup.host.url("/photo.jpg")]]).status == .created)
        let second = try setup.create(["content": ["two"], "photo": [setup.host.url("/photo.jpg")]])
        #expect(second.status == .tooManyRequests)
        #expect(setup.host.requests.count == 1, "the second was never fetched")
        #expect(try setup.posts().count == 1)
    }

    @Test func aPrivateAddressIsRefusedWhenNotAllowed() throws {
        let setup = try Setup(allowPrivate: false, photo: [0xFF, 0xD8, 0xFF])
        let refused = try setup.create(["content": ["x"], "photo": [setup.host.url("/photo.jpg")]])
        #expect(refused.status == .badRequest)
        #expect(setup.description(refused).contains("may not reach"), "\(setup.description(refused))")
        #expect(setup.host.requests.isEmpty, "never connected")
        #expect(try setup.posts().isEmpty)
    }
}
