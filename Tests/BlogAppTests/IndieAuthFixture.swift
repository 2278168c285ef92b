import BlogApp
import BlogAuth
import BlogCore
import BlogServer
import BlogTestSupport
@testable import BlogWeb
import Foundation
import Logging

/// A blog with the web client, Micropub and the IndieAuth endpoints on a
/// real page server on loopback, its pages naming the endpoints. The blog
/// is `http://blog.example/` to its pages; the test's HTTP client sends
/// that host's requests to the loopback port, as a resolver would.
final class IndieAuthFixture: @unchecked Sendable {
    static let base = "http://blog.example/"
    static let app = "https://app.example/"
    static let callback = "https://app.example/callback"
    let blog: TestBlog
    let tokens: AccessTokens
    let server: IndieAuthServer
    let budget: IndieAuthBudget
    let application: ApplicationSet

    init(budget: IndieAuthBudget? = nil, clients: any ClientInfoSource = HostOnlyClientInfo()) throws {
        var settings = BlogService.Settings(scrypt: .testing, registrationOpen: false, baseURL: Self.base)
        settings.pagesNameMicropub = true
        blog = try TestBlog(settings: settings)
        let clock = blog.clock
        let now: @Sendable () -> Date = { TestBlog.date(of: clock) }
        tokens = AccessTokens(storage: blog.store, now: now)
        let service = blog.service
        let blogServer = blog.server
        let backend = WebClient.Backend(
            perform: { blogServer.perform($0, extras: $1, session: $2) },
            storePhoto: { service.storePhoto($0, image: $1, thumbnail: $2, for: $3, session: $4) },
            storage: blog.store, tokens: tokens, registrationOpen: false,
            restore: { service.restorePost($0, id: $1, session: $2) })
        self.budget = budget ?? IndieAuthBudget(perMinute: 1000, burst: 1000, now: now)
        server = IndieAuthServer(baseURL: Self.base, storage: blog.store, tokens: tokens, budget: self.budget, clients: clients,
                                 now: now)
        application = ApplicationSet([WebClient(backend: backend, indieAuth: server), Micropub(backend: backend, baseURL: Self.base),
                                      IndieAuthEndpoints(server: server)])
        try service.moderateAddUser("alice", password: "alice-pw")
    }

    deinit { _ = blog.tearDown() }

    func start() async throws -> WebServer {
        try await WebServer(folder: blog.publicFolder, host: "127.0.0.1", port: 0, logger: Logger(label: "test.indieauth"),
                            limits: .patient, application: application)
    }

    /// Moves the blog's clock (and so the codes' and budgets') on.
    func advance(by seconds: Double) { blog.clock.advance(by: seconds) }
}

/// An HTTP client over real sockets that reaches `http://blog.example/`
/// at a loopback port, keeping cookies when asked (a browser) and sending
/// `Origin` with a POST as browsers do.
final class LoopbackHTTP: @unchecked Sendable {
    let port: Int
    let isBrowser: Bool
    private(set) var cookies: [String: String] = [:]

    init(port: Int, browser: Bool) {
        self.port = port
        self.isBrowser = browser
    }

    /// The path and query of a URL on the blog (or a path already).
    static func target(_ url: String) -> String {
        guard url.hasPrefix(IndieAuthFixture.base) else { return url }
        return "/" + url.dropFirst(IndieAuthFixture.base.count)
    }

    func get(_ url: String, headers: [String: String] = [:]) async throws -> WireResponse {
        try await send("GET", url, body: "", headers: headers)
    }

    func post(_ url: String, _ form: [(String, String)], headers: [String: String] = [:]) async throws -> WireResponse {
        let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        var extra = headers
        extra["Content-Type"] = "application/x-www-form-urlencoded"
        if isBrowser { extra["Origin"] = "http://blog.example" }
        return try await send("POST", url, body: body, headers: extra)
    }

    func send(_ method: String, _ url: String, body: String, headers: [String: String]) async throws -> WireResponse {
        var head = "\(method) \(Self.target(url)) HTTP/1.1\r\nHost: blog.example\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if isBrowser, !cookies.isEmpty {
            head += "Cookie: " + cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") + "\r\n"
        }
        let request = head + "\r\n" + body
        let port = self.port
        let (response, setCookies) = try await onThread { () throws -> (WireResponse, [String]) in
            let connection = try WireHTTP(port: port)
            connection.send(request)
            let response = try connection.readResponse()
            return (response, response.setCookies)
        }
        if isBrowser {
            for line in setCookies {
                let pair = line.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
                if value.isEmpty || line.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
            }
        }
        return response
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
