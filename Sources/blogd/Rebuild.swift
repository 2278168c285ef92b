import ArgumentParser
import Logging

struct Rebuild: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite pages from the database (all users, or the named ones).",
        discussion: "The database is the source of truth; pages are derived from it. It refuses while a server runs on the same SQLite database (stop it first): `blogd serve` also checks every page at start and rewrites those that are missing, stale or damaged.")

    @OptionGroup var data: DataOptions
    @Argument(help: "Users whose pages to rewrite (default: everyone).")
    var names: [String] = []

    func run() async throws {
        let settings = try await data.load()
        bootstrapLogging(settings)
        let (store, service) = try openService(settings, logger: Logger(label: "blogd.rebuild"))
        defer { closeService(store, service) }
        let hold = try holdDatabase(settings, as: .rebuild)
        defer { hold?.release() }
        do {
            let rebuilt = try service.rebuildPages(of: names)
            print("rebuilt the pages of \(rebuilt.count) user\(rebuilt.count == 1 ? "" : "s")")
        } catch {
            throw fail(error.description)
        }
    }
}
