import BlogCore
import BlogServer
import BlogWeb
import Logging

extension Serve {
    /// What a SIGHUP changes without a restart: the log level, whether
    /// anyone may register, and the blog port's connection limits and
    /// per-address budgets. Anything else changed in the configuration is
    /// named in the log as needing one.
    static let reloadable: Set<String> = [
        "logLevel", "registrationOpen", "maxConnections", "maxConnectionsPerAddress", "hashesPerAddressPerSecond",
        "hashBurstPerAddress", "postBytesPerAddressPerSecond", "postBurstBytesPerAddress",
    ]

    /// Reads the configuration again (`file`, the one read at the start, the
    /// environment, flags) and applies what can be applied live; returns
    /// the settings now in force. An invalid configuration, or a file gone
    /// since the start, is logged and changes nothing.
    func reload(_ current: BlogConfig, file: String?, server: BlogServer, service: BlogService,
                logger: Logger) async -> BlogConfig {
        let loaded: BlogConfig
        do {
            loaded = try await ConfigLoader.load(file: file ?? data.config, flags: dataFlags.merging(commandLineFlags) { $1 })
        } catch {
            logger.error("reload failed: the configuration is kept as it was", metadata: ["error": "\(error)"])
            return current
        }
        return applyReload(loaded, over: current, server: server, service: service, logger: logger)
    }

    /// Applies the live part of `new` and returns `current` with it.
    func applyReload(_ new: BlogConfig, over current: BlogConfig, server: BlogServer, service: BlogService,
                     logger: Logger) -> BlogConfig {
        let changed = Self.changedKeys(current, new)
        var applied = current
        applied.logLevel = new.logLevel
        applied.registrationOpen = new.registrationOpen
        applied.maxConnections = new.maxConnections
        applied.maxConnectionsPerAddress = new.maxConnectionsPerAddress
        applied.hashesPerAddressPerSecond = new.hashesPerAddressPerSecond
        applied.hashBurstPerAddress = new.hashBurstPerAddress
        applied.postBytesPerAddressPerSecond = new.postBytesPerAddressPerSecond
        applied.postBurstBytesPerAddress = new.postBurstBytesPerAddress
        LiveLogLevel.shared.level = Logger.Level(rawValue: applied.logLevel) ?? .info
        service.registrationOpen = applied.registrationOpen
        server.reload(limits: Self.serverOptions(applied))
        let live = changed.filter(Self.reloadable.contains)
        let later = changed.filter { !Self.reloadable.contains($0) }
        logger.notice("configuration reloaded", metadata: [
            "applied": "\(live.map(Self.fileKey).joined(separator: ","))",
            "needs_restart": "\(later.map(Self.fileKey).joined(separator: ","))",
            "max_connections": "\(server.maxConnections)"])
        return applied
    }

    /// Reads the HTTPS certificate and key again (renewed, say): new
    /// connections get them; if they cannot be used, the old pair stays.
    func reloadCertificates(_ certificates: TLSCertificates?, logger: Logger) {
        guard let certificates else { return }
        do {
            try certificates.reload()
            logger.notice("tls certificate reloaded", metadata: ["certificate": "\(certificates.certificatePath)"])
        } catch {
            logger.error("tls certificate not reloaded: the old one stays", metadata: ["error": "\(error)"])
        }
    }

    /// The `--db` and `--public` flags, as `DataOptions.load` passes them.
    private var dataFlags: [String: String] {
        var flags: [String: String] = [:]
        flags["db"] = data.db
        flags["public"] = data.publicFolder
        return flags
    }

    /// The names of the settings that differ (property names: `BlogConfig`
    /// keeps no other list of its keys).
    static func changedKeys(_ a: BlogConfig, _ b: BlogConfig) -> [String] {
        zip(Mirror(reflecting: a).children, Mirror(reflecting: b).children).compactMap { left, right in
            guard let label = left.label, String(describing: left.value) != String(describing: right.value) else { return nil }
            return label
        }
    }

    /// `maxConnectionsPerAddress` as the configuration file spells it:
    /// a word starts at each capital after a lower-case letter or digit,
    /// and an acronym is one word (`baseURL`: `base_url`,
    /// `httpRedirectHTTPS`: `http_redirect_https`).
    static func fileKey(_ property: String) -> String {
        switch property {
        case "database": return "db"
        case "publicFolder": return "public"
        case "registrationOpen": return "registration"
        default:
            let characters = Array(property)
            var key = ""
            for (index, character) in characters.enumerated() {
                if character.isUppercase && index > 0 {
                    let previous = characters[index - 1]
                    let next = index + 1 < characters.count ? characters[index + 1] : nil
                    if !previous.isUppercase || next?.isLowercase == true { key += "_" }
                }
                key += character.lowercased()
            }
            return key
        }
    }
}
