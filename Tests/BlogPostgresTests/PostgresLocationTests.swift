import Testing
@testable import BlogPostgres

/// `db` URLs: what they name, and that the password never shows.
@Suite("PostgresLocation")
struct PostgresLocationTests {
    @Test func fullURL() throws {
        let location = try PostgresLocation(url: "postgres://blog:s3cret@db.example:6543/blogdb", environment: [:])
        #expect(location == PostgresLocation(user: "blog", password: "s3cret", host: "db.example", port: 6543, database: "blogdb"))
        #expect(location.description == "postgres://blog:***@db.example:6543/blogdb")
        #expect(!location.description.contains("s3cret"))
    }

    @Test func defaultsAndThePasswordFromTheEnvironment() throws {
        let location = try PostgresLocation(url: "postgresql://blog@localhost/blog", environment: ["PGPASSWORD": "fromenv"])
        #expect(location.port == 5432)
        #expect(location.password == "fromenv")
        #expect(location.tls == .prefer)
        #expect(!location.description.contains("fromenv"))
        let urlWins = try PostgresLocation(url: "postgres://blog:inurl@localhost/blog", environment: ["PGPASSWORD": "fromenv"])
        #expect(urlWins.password == "inurl")
        #expect(try PostgresLocation(url: "postgres://blog@localhost/blog", environment: [:]).password == nil)
    }

    @Test func escapesIPv6AndSockets() throws {
        let escaped = try PostgresLocation(url: "postgres://bl%40g:p%3Aw%2F@[::1]:5433/my%20db?sslmode=disable", environment: [:])
        #expect(escaped.user == "bl@g")
        #expect(escaped.password == "p:w/")
        #expect(escaped.host == "::1")
        #expect(escaped.port == 5433)
        #expect(escaped.database == "my db")
        #expect(escaped.tls == .disable)
        #expect(escaped.description == "postgres://bl@g:***@[::1]:5433/my db?sslmode=disable")
        let socket = try PostgresLocation(url: "postgresql://blog@%2Fvar%2Frun%2Fpostgresql/blog", environment: [:])
        #expect(socket.isUnixSocket)
        #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
        let query = try PostgresLocation(url: "postgres://blog@localhost/blog?host=/tmp&port=7000", environment: [:])
        #expect(query.unixSocketPath == "/tmp/.s.PGSQL.7000")
        // A password holding '@' still ends at the last one.
        #expect(try PostgresLocation(url: "postgres://u:a@b@h/d", environment: [:]).password == "a@b")
    }

    @Test func isURL() {
        #expect(PostgresLocation.isURL("postgres://a@b/c"))
        #expect(PostgresLocation.isURL("PostgreSQL://a@b/c"))
        #expect(!PostgresLocation.isURL("data/blog.sqlite"))
        #expect(!PostgresLocation.isURL("postgres.sqlite"))
    }

    @Test func refused() {
        for url in ["postgres://localhost/blog", "postgres://@localhost/blog", "postgres://blog@localhost",
                    "postgres://blog@localhost/", "postgres://blog@localhost:99999/blog", "postgres://blog@localhost:x/blog",
                    "postgres://blog@/blog", "postgres://blog@localhost/blog?sslmode=maybe",
                    "postgres://blog@localhost/blog?application_name=x", "postgres://blog:%zz@localhost/blog",
                    "mysql://blog@localhost/blog"] {
            #expect(throws: PostgresLocation.Invalid.self, "\(url)") { try PostgresLocation(url: url, environment: [:]) }
        }
        // The reason never repeats a password.
        do {
            _ = try PostgresLocation(url: "postgres://blog:hunter2@localhost:bad/blog", environment: [:])
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }
}
