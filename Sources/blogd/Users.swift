import ArgumentParser
import BlogModel
import Logging

struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the users: name, registered at, posts, last post at.",
        discussion: "Reads the database read-only (PostgreSQL: without migrating it), so it works while the server runs.")

    @Option(help: "JSON config file (default: config/blogd.json if present).")
    var config: String?
    @Option(help: "SQLite database file, or a postgres://USER@HOST:PORT/DATABASE URL.")
    var db: String?
    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        let database = try await configuredDatabase(config: config, db: db)
        do {
            // Quiet: stdout is the listing, which scripts parse.
            let store = try Database.open(database, layout: PageLayout(pageSize: 50), readOnly: true,
                                          logger: Logger(label: "blogd.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
            let users = try store.userSummaries()
            try? store.close()
            print(json ? UserListing.json(users) : UserListing.table(users), terminator: "")
        } catch {
            throw fail("\(error)")
        }
    }
}
