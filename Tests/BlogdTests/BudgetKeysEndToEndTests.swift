import BlogTestSupport
import Foundation
import Testing

/// The budgets set by key reach the real binary's doors: with a burst of
/// one and the slowest refill, a second search, tag page or token request
/// from one address is `429` with a `Retry-After` that says how long.
@Suite(.serialized)
struct BudgetKeysEndToEndTests {
    @Test func budgetsFromTheEnvironmentApply() throws {
        if curlIsMissing() { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-budgets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        let data = ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
        let environment = [
            "BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1",
            "BLOGD_SEARCH_RATE": "0.01", "BLOGD_SEARCH_BURST": "1",
            "BLOGD_TAG_PAGES_RATE": "0.01", "BLOGD_TAG_PAGES_BURST": "1",
            "BLOGD_INDIEAUTH_TOKEN_RATE": "0.01", "BLOGD_INDIEAUTH_TOKEN_BURST": "1",
        ]
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data, environment: environment)
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()

        #expect(try httpRequest(port: http, path: "/search?q=walrus").status == 200)
        let search = try httpRequest(port: http, path: "/search?q=walrus")
        #expect(search.status == 429 && search.headers["retry-after"] == "100")
        #expect(try httpRequest(port: http, path: "/tags/swift").status == 200, "an empty tag page")
        #expect(try httpRequest(port: http, path: "/tags/swift").status == 429)
        #expect(try httpRequest(port: http, method: "POST", path: "/indieauth/token").status == 400)
        let token = try httpRequest(port: http, method: "POST", path: "/indieauth/token")
        #expect(token.status == 429 && token.headers["retry-after"] == "100")
    }
}
