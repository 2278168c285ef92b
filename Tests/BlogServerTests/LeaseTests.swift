import BlogCore
import BlogServer
import Foundation
import Testing
import BlogAuth

/// Who may post: the login lease per address, the connection's own logins,
/// and the open mode of the original.
@Suite("Who may post")
struct LeaseTests {
    @Test func loginOnOneConnectionLetsTheSameAddressPostOnAnother() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        _ = try f.store.createUser(name: "Leased", passwordHash: try PasswordHasher(parameters: .testing).hash("pw"), at: Date())
        #expect(try f.ask("newpost:Leased:Before:c[E];") == "post:NA[E];")
        #expect(try f.ask("login:Leased:pw[E];") == "log:OK[E];")
        #expect(try f.ask("newpost:Leased:After:c[E];") == "post:OK[E];")
        #expect(try f.ask("newpost:Leased:Again:c[E];") == "post:OK[E];")
        #expect(try f.postCount(of: "Leased") == 2)
    }

    @Test func registeringGrantsTheLease() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:Fresh:pw[E];") == "reg:OK[E];")
        #expect(try f.ask("newpost:Fresh:First:c[E];") == "post:OK[E];")
    }

    @Test func leaseIsPerUserNameInAnyCase() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Mixed")
        _ = try f.store.createUser(name: "Other", passwordHash: "x", at: Date())
        #expect(try f.ask("newpost:mixed:Lower:c[E];") == "post:OK[E];")
        #expect(try f.ask("newpost:Other:Not mine:c[E];") == "post:NA[E];")
        #expect(try f.postCount(of: "Other") == 0)
        // The page keeps the case given at registration.
        #expect(f.page(of: "Mixed")?.contains("Lower") == true)
    }

    @Test func expiredLeaseRefusesUntilTheNextLogin() throws {
        let f = try ServerFixture(settings: .init(scrypt: .testing, loginLease: 0.3))
        defer { f.tearDown() }
        try f.registerAndLogin("Brief")
        f.advance(by: 0.3)
        #expect(try f.ask("newpost:Brief:Late:c[E];") == "post:NA[E];")
        #expect(try f.ask("login:Brief:pw[E];") == "log:OK[E];")
        #expect(try f.ask("newpost:Brief:Fresh:c[E];") == "post:OK[E];")
        #expect(try f.postCount(of: "Brief") == 1)
    }

    /// With no lease at all (0 s), only a login on the same connection counts.
    @Test func loginEarlierOnTheSameKeepAliveConnection() throws {
        let f = try ServerFixture(settings: .init(scrypt: .testing, loginLease: 0)) {
            $0.connection.keepAlive = true
        }
        defer { f.tearDown() }
        let registering = try f.client()
        try registering.send("register:Conn:pw[E];")
        #expect(try registering.readReply() == "reg:OK[E];")
        registering.close()
        let client = try f.client()
        try client.send("newpost:Conn:Before:c[E];")
        #expect(try client.readReply() == "post:NA[E];")
        try client.send("login:Conn:wrong[E];")
        #expect(try client.readReply() == "log:NA[E];")
        try client.send("newpost:Conn:After failure:c[E];")
        #expect(try client.readReply() == "post:NA[E];")
        try client.send("login:Conn:pw[E];newpost:Conn:After login:c[E];")
        #expect(try client.readReply() == "log:OK[E];")
        #expect(try client.readReply() == "post:OK[E];")
        // Another connection has neither the login nor a lease.
        let other = try f.client()
        try other.send("newpost:Conn:Elsewhere:c[E];")
        #expect(try other.readReply() == "post:NA[E];")
        #expect(try f.postCount(of: "Conn") == 1)
    }

    @Test func openPostingAcceptsPostsWithoutLogin() throws {
        let f = try ServerFixture(settings: .init(openPosting: true, scrypt: .testing))
        defer { f.tearDown() }
        // Created behind the server's back: no login, no lease, no page yet.
        _ = try f.store.createUser(name: "Open", passwordHash: "x", at: Date())
        #expect(try f.ask("newpost:Open:Anyone:may post[E];") == "post:OK[E];")
        #expect(try f.postCount(of: "Open") == 1)
        #expect(f.page(of: "Open")?.contains("may post") == true, "the page is rebuilt from the database")
        // Unknown users are still refused.
        #expect(try f.ask("newpost:Nobody:T:c[E];") == "post:NA[E];")
    }
}
