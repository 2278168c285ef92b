import ArgumentParser
import BlogCore

struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the users: name, registered at, posts, last post at.",
        discussion: "Reads the database read-only, so it works while the server runs.")

    @Option(help: "JSON config file (default: config/blogd.json if present).")
    var config: String?
    @Option(help: "SQLite database file.")
    var db: String?
    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        var flags: [String: String] = [:]
        flags["db"] = db
        let path: String
        do {
            path = try await ConfigLoader.load(file: config, flags: flags).database
        } catch {
            throw fail(error.description)
        }
        do {
            let store = try BlogStore(path: path, create: false, readOnly: true)
            let users = try store.userSummaries()
            try? store.close()
            print(json ? UserListing.json(users) : UserListing.table(users), terminator: "")
        } catch {
            throw fail(error.description)
        }
    }
}
