import ArgumentParser
import BlogCore
import BlogModel
import Foundation
import Logging
import BlogPages

/// Options every command that touches the data shares.
struct DataOptions: ParsableArguments {
    @Option(help: ArgumentHelp("JSON config file (default: config/blogd.json if present).", valueName: "file"))
    var config: String?
    @Option(help: ArgumentHelp("SQLite database file, or a postgres://USER@HOST:PORT/DATABASE URL "
                               + "(default: data/blog.sqlite; BLOGD_DB).", valueName: "path-or-url"))
    var db: String?
    @Option(name: .customLong("public"),
            help: ArgumentHelp("Public web folder for the pages (default: public; BLOGD_PUBLIC).", valueName: "folder"))
    var publicFolder: String?

    /// The configuration: defaults, file, `BLOGD_*`, then these flags and `extra`.
    func load(extra: [String: String] = [:]) async throws -> BlogConfig {
        var flags = extra
        flags["db"] = db
        flags["public"] = publicFolder
        do {
            return try await ConfigLoader.load(file: config, flags: flags)
        } catch {
            throw fail(error.description)
        }
    }
}

/// The database the config file, `BLOGD_*` and `--db` name, for commands
/// that need nothing else; a config error stops with one line.
func configuredDatabase(config: String?, db: String?) async throws -> String {
    do {
        return try await ConfigLoader.load(file: config, flags: db.map { ["db": $0] } ?? [:]).database
    } catch {
        throw fail(error.description)
    }
}

/// The store and service a configuration describes; fails with one clear
/// line when the public folder or the database cannot be used. Only
/// `serve` passes `create` (see `DatabaseCreation`).
/// With `metered`, the storage's failures are counted (`MeteredStorage`).
func openService(_ settings: BlogConfig, create: Bool = false, metered: Bool = false,
                 logger: Logger) throws -> (any BlogStorage, BlogService) {
    var isFolder: ObjCBool = false
    let folder = ConfigPaths.absolute(settings.publicFolder)
    guard FileManager.default.fileExists(atPath: settings.publicFolder, isDirectory: &isFolder), isFolder.boolValue else {
        throw fail("public folder not found: \(folder) (check --public, BLOGD_PUBLIC or the config's public; "
                   + "`blogd serve` makes it, or: mkdir -p \(folder))")
    }
    guard FileManager.default.isWritableFile(atPath: settings.publicFolder) else {
        throw fail("public folder not writable: \(folder)")
    }
    let missing = !ConfigPaths.isDatabaseURL(settings.database) && !FileManager.default.fileExists(atPath: settings.database)
    do {
        let opened = try Database.open(settings.database, layout: settings.serviceSettings.layout, create: create,
                                       deadline: settings.storageDeadline, logger: Logger(label: "blogd.postgres"))
        let store: any BlogStorage = metered ? MeteredStorage(opened) : opened
        if settings.webmentionSend { WebmentionSetup.queue(in: store) }
        if settings.webClient && settings.httpPort != nil { ActivityPubSetup.queue(in: store) }
        if create && missing {
            logger.notice("made a new database", metadata: ["db": "\(ConfigPaths.absolute(settings.database))"])
        }
        var serviceSettings = settings.serviceSettings
        // Pages name the Micropub endpoint while the web client is on.
        serviceSettings.pagesNameMicropub = settings.webClient
        serviceSettings.pagesNameWebmention = settings.webClient
        // The link to a page's JSON is absolute (Mastodon does not resolve
        // it): only an operator's base URL makes it the same from every
        // instance and from `blogd rebuild`.
        serviceSettings.pagesNameActivityPub = settings.webClient && settings.baseURL != nil
        // Only a base URL set by the operator fixes the feeds' ids.
        if let baseURL = settings.baseURL {
            serviceSettings.feedIDBase = try Feeds.idBase(storage: store, baseURL: baseURL)
        }
        let service = try BlogService(
            store: store, pages: PublicFolder(folder: URL(fileURLWithPath: settings.publicFolder)),
            settings: serviceSettings, logger: logger)
        return (store, service)
    } catch {
        throw fail("\(error)")
    }
}

/// Closes what `openService` opened, for a command that ends: its page
/// writes finished first (`BlogService.finishPageWrites`).
func closeService(_ store: any BlogStorage, _ service: BlogService) {
    service.finishPageWrites()
    try? store.close()
}

/// Makes the public folder when it is not there, as the database's folder
/// is made: `blogd serve` only (an admin command needs the blog's pages).
func makePublicFolder(_ settings: BlogConfig, logger: Logger) throws {
    guard !FileManager.default.fileExists(atPath: settings.publicFolder) else { return }
    let folder = ConfigPaths.absolute(settings.publicFolder)
    do {
        try FileManager.default.createDirectory(atPath: settings.publicFolder, withIntermediateDirectories: true)
    } catch {
        throw fail("cannot make the public folder \(folder): \(error.localizedDescription)")
    }
    logger.notice("made the public folder", metadata: ["public": "\(folder)"])
}

/// Routes swift-log to stderr at the configured level, in batches (see
/// `BatchedStandardError`); whatever is waiting is written at exit.
func bootstrapLogging(_ settings: BlogConfig) {
    atexit { BatchedStandardError.shared.flush() }
    // Without TZ, glibc's localtime (a timestamp on every log line) checks
    // /etc/localtime with a stat call each time; with it, it reads it once.
    if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 1) }
    LiveLogLevel.shared.level = Logger.Level(rawValue: settings.logLevel) ?? .info
    let journal = JournalLogHandler.journalIsStandardError(ProcessInfo.processInfo.environment)
    LoggingSystem.bootstrap { label in
        // The live level filters; the inner handler writes whatever comes.
        if journal {
            return LiveLevelHandler(inner: JournalLogHandler(label: label, stream: BatchedStandardError.shared.stream),
                                    live: .shared)
        }
        var handler = StreamLogHandler(label: label, stream: BatchedStandardError.shared.stream)
        handler.logLevel = .trace
        return LiveLevelHandler(inner: handler, live: .shared)
    }
}
