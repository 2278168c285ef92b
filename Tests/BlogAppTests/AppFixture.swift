import BlogApp
import BlogCore
import BlogServer
import BlogTestSupport
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import BlogAuth
import BlogPhotos

/// A real blog (SQLite file, pages folder, blog server on a free port) with
/// the web client and Micropub in front, asked in process: each request
/// goes through `BlogServer.perform`, the blog port's budgets and lanes.
final class AppFixture: @unchecked Sendable {
    let blog: TestBlog
    let tokens: AccessTokens
    let client: WebClient
    let micropub: Micropub
    static let base = "https://blog.example/"

    init(registrationOpen: Bool = true, uploads: UploadBudget = UploadBudget(perMinute: 1000, burst: 1000, concurrent: 4),
         maxTextBytes: Int = Frame.defaultMaxMessageBytes, photoFetcher: (any OutgoingHTTP)? = nil,
         photoLimits: PhotoLimits = PhotoLimits(), configure: (inout BlogServer.Options) -> Void = { _ in }) throws {
        blog = try TestBlog(settings: .init(scrypt: .testing, registrationOpen: registrationOpen, baseURL: Self.base),
                            configure: configure)
        let clock = blog.clock
        tokens = AccessTokens(storage: blog.store, now: { TestBlog.date(of: clock) })
        let server = blog.server
        let service = blog.service
        var backend = WebClient.Backend(
            perform: { server.perform($0, extras: $1, session: $2) },
            storePhoto: { service.storePhoto($0, image: $1, thumbnail: $2, for: $3, session: $4) },
            storage: blog.store, tokens: tokens, registrationOpen: registrationOpen, uploads: uploads, photoLimits: photoLimits,
            restore: { service.restorePost($0, id: $1, session: $2) },
            maxTextBytes: maxTextBytes, setPassword: { try service.setPassword($0.value, to: $1) })
        backend.setBlogSettings = { try service.setBlogSettings($1, of: $0) }
        backend.blogSettingsBudget = BlogSettingsBudget(now: { TestBlog.date(of: clock) })
        backend.photoFetcher = photoFetcher
        client = WebClient(backend: backend)
        micropub = Micropub(backend: backend, baseURL: Self.base)
    }

    deinit { _ = blog.tearDown() }

    /// A page's text in the public folder, nil when there is no such file.
    func file(_ name: String) -> String? {
        try? String(contentsOf: blog.publicFolder.appendingPathComponent(name), encoding: .utf8)
    }

    /// A browser: keeps its cookies, sends `Origin` on a POST as browsers do.
    final class Browser {
        let app: any WebApplication
        var cookies: [String: String] = [:]
        var address: String
        var secure: Bool

        init(_ app: any WebApplication, address: String = "203.0.113.7", secure: Bool = true) {
            self.app = app
            self.address = address
            self.secure = secure
        }

        @discardableResult
        func get(_ target: String) -> WebResponse {
            send(.get, target, body: [], extra: [:])
        }

        /// Posts `form`, with the CSRF token of `page` unless one is given.
        @discardableResult
        func post(_ path: String, _ form: [(String, String)], origin: String? = nil) -> WebResponse {
            let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
            var extra: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            extra[.origin] = origin ?? "\(secure ? "https" : "http")://blog.example"
            return send(.post, path, body: Array(body.utf8), extra: extra)
        }

        func send(_ method: HTTPRequest.Method, _ target: String, body: [UInt8], extra: HTTPFields) -> WebResponse {
            let parts = target.split(separator: "?", maxSplits: 1)
            var headers = extra
            headers[HTTPField.Name("Host")!] = "blog.example"
            if !cookies.isEmpty {
                headers[.cookie] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            }
            let response = app.respond(to: WebRequest(method: method, path: String(parts[0]),
                                                      query: parts.count > 1 ? String(parts[1]) : "", headers: headers,
                                                      body: body, peerAddress: address, secure: secure))
            for line in response.headers[values: .setCookie] {
                let pair = line.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
                if value.isEmpty || line.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
            }
            return response
        }

        /// The CSRF token of a page's first form.
        static func csrf(_ page: WebResponse) -> String {
            let text = String(decoding: page.body, as: UTF8.self)
            guard let start = text.range(of: "name=\"csrf\" value=\"") else { return "" }
            return String(text[start.upperBound...].prefix { $0 != "\"" })
        }

        static func encode(_ text: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }

        /// Registers (or logs in) through the forms; returns the last response.
        @discardableResult
        func signIn(_ name: String, _ password: String, register: Bool = true) -> WebResponse {
            let path = register ? "/app/register" : "/app/login"
            let form = get(path)
            return post(path, [("csrf", Self.csrf(form)), ("name", name), ("password", password)])
        }

        /// The CSRF token of the signed-in pages.
        var csrf: String { Self.csrf(get("/app/")) }
    }
}

extension WebResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
