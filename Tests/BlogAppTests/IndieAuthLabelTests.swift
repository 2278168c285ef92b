@testable import BlogApp
import BlogAuth
import Testing

/// A token's label names the app and keeps its client id whole: a name
/// too long to fit beside it is left out, so introspection can still
/// read the client id back.
@Suite
struct IndieAuthLabelTests {
    struct Named: ClientInfoSource {
        let name: String
        func clientInfo(for clientID: ClientID) -> ClientInfo? { ClientInfo(name: name) }
    }

    @Test func aLabelKeepsTheClientIDWhole() throws {
        let client = try #require(ClientID(IndieAuthFixture.app))
        let short = try IndieAuthFixture(clients: Named(name: "Quill")).server.label(client)
        #expect(short == "Quill (https://app.example/)")
        #expect(IndieAuthServer.clientID(fromLabel: short) == IndieAuthFixture.app)
        let long = try IndieAuthFixture(clients: Named(name: String(repeating: "n", count: 90))).server.label(client)
        #expect(long == IndieAuthFixture.app && AccessTokens.label(long) == long)
        #expect(IndieAuthServer.clientID(fromLabel: long) == IndieAuthFixture.app)
    }
}
