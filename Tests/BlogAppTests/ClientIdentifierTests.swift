import BlogApp
import Testing

/// Client identifiers and redirect URIs as IndieAuth 2022 (section 3.2)
/// has them, and the origin a redirect URI must share.
struct ClientIdentifierTests {
    @Test(arguments: ["https://app.example/", "https://app.example/path/?x=1", "http://localhost:8080/",
                      "http://127.0.0.1/cb", "http://[::1]:3000/", "https://APP.example/"])
    func accepted(_ text: String) {
        #expect(ClientID(text) != nil, "\(text)")
    }

    @Test(arguments: ["https://app.example", "ftp://app.example/", "https://app.example/#frag", "https://user:pw@app.example/",
                      "https://app.example/./x", "https://app.example/a/../b", "https://10.0.0.1/", "https://192.168.1.1/",
                      "https://[::2]/", "https://[fe80::1]/", "/relative", "app.example/", "https://app.example/ space",
                      "javascript:alert(1)", "", "https://app.example/\u{00e9}"])
    func refused(_ text: String) {
        #expect(ClientID(text) == nil, "\(text)")
    }

    @Test func aRedirectMustShareTheOrigin() throws {
        let client = try #require(ClientID("https://app.example/"))
        #expect(client.sharesOrigin(with: try #require(RedirectURI("https://app.example/callback?a=b"))))
        #expect(client.sharesOrigin(with: try #require(RedirectURI("https://APP.example:443/cb"))), "default port, any case")
        for other in ["http://app.example/cb", "https://app.example:8443/cb", "https://evil.example/cb",
                      "https://app.example.evil.example/cb"] {
            #expect(!client.sharesOrigin(with: try #require(RedirectURI(other))), "\(other)")
        }
        #expect(RedirectURI("https://app.example/cb#x") == nil && RedirectURI("https://u@app.example/cb") == nil)
        #expect(client.origin == "https://app.example")
        #expect(ClientID("http://[::1]:3000/")?.origin == "http://[::1]:3000")
    }

    @Test func answersAreAddedToTheQuery() throws {
        let uri = try #require(RedirectURI("https://app.example/cb?keep=1"))
        #expect(uri.adding([("code", "a b&c"), ("state", "s")]) == "https://app.example/cb?keep=1&code=a%20b%26c&state=s")
        #expect(try #require(RedirectURI("https://app.example/cb")).adding([("code", "x")]) == "https://app.example/cb?code=x")
    }
}
