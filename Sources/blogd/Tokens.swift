import ArgumentParser
import BlogModel
import Foundation
import Logging
import BlogAuth

// The admin's access-token commands. Each is one read or one commit on
// the database, so it works while `blogd serve` runs on it; no page
// changes, so no page lock. Standard output carries only what a script
// wants (the secret, the listing); everything else goes to standard error.

/// Opens the database the configuration names, finds user `name` and runs
/// `body`; one line on stderr and exit 1 for a missing user or a failure.
private func withUser<T>(_ data: DataOptions, _ name: String, readOnly: Bool = false,
                         _ body: (any BlogStorage, UserRecord) throws -> T) async throws -> T {
    let settings = try await data.load()
    bootstrapLogging(settings)
    let store: any BlogStorage
    do {
        store = try Database.open(settings.database, layout: settings.serviceSettings.layout, readOnly: readOnly,
                                  deadline: settings.storageDeadline, logger: Logger(label: "blogd.postgres"))
    } catch {
        throw fail("\(error)")
    }
    defer { try? store.close() }
    do {
        guard let user = try store.user(named: name) else { throw fail("no such user: \(name)") }
        return try body(store, user)
    } catch let exit as ExitCode {
        throw exit
    } catch {
        throw fail("\(error)")
    }
}

/// A line on standard error, for people: standard output stays the script's.
private func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

struct IssueToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make a bearer token (Micropub) for a user and print its secret, once.",
        discussion: """
            Standard output is the secret alone, so a script can capture it: `SECRET=$(blogd token alice)`. \
            Only its SHA-256 is stored: it cannot be shown again. The token lasts until revoked (`blogd revoke-token`).
            """)

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String
    @Option(help: ArgumentHelp("What the token may do: space-separated, of create update delete media.", valueName: "scopes"))
    var scope = "create"
    @Option(help: ArgumentHelp("What it is for, shown in `blogd tokens`.", valueName: "text"))
    var label = "blogd token"

    func run() async throws {
        let scopes: Set<AccessTokens.Scope>
        do { scopes = try AccessTokens.Scope.parse(scope) } catch { throw fail(error.description) }
        guard !scopes.isEmpty else { throw fail("give at least one scope (create update delete media)") }
        let (secret, token) = try await withUser(data, name) { store, user in
            if user.suspended { note("note: \(user.name) is suspended; the token works once the suspension is lifted") }
            return try AccessTokens(storage: store).issue(userID: user.id, kind: .bearer, scopes: scopes, label: label,
                                                          lifetime: nil)
        }
        print(secret)
        note("made token \(token.id) for \(name) (\(token.scopes)); its secret is shown once")
    }
}

struct ListTokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "List a user's access tokens: id, kind, scopes, label, created, expires (never a secret).",
        discussion: "Reads the database read-only (PostgreSQL: without migrating it), so it works while the server runs.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String

    func run() async throws {
        let tokens = try await withUser(data, name, readOnly: true) { store, user in
            try AccessTokens(storage: store).list(ofUserID: user.id)
        }
        print(TokenListing.table(tokens), terminator: "")
    }
}

struct RevokeToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-token",
        abstract: "Revoke one of a user's access tokens: it stops working at once, on every instance.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String
    @Argument(help: "The token's id, as `blogd tokens` lists it.")
    var id: Int64

    func run() async throws {
        let revoked = try await withUser(data, name) { store, user in
            try AccessTokens(storage: store).revoke(id: id, ofUserID: user.id)
        }
        guard revoked else { throw fail("\(name) has no token \(id)") }
        print("revoked token \(id) of \(name)")
    }
}
