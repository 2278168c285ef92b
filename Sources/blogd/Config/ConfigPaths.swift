import Foundation

/// Where the paths of a configuration lead. A relative path written in a
/// config file is read from the file's folder, so that the service and an
/// admin command run from anywhere else (`blogd adduser --config
/// /etc/blogd/blogd.json`) mean the same files; a path given as a flag or
/// in a `BLOGD_*` variable is read from the working directory, as a shell
/// user expects.
///
///     // /etc/blogd/blogd.json: { "db": "data/blog.sqlite" }
///     config.database  // "/etc/blogd/data/blog.sqlite"
public enum ConfigPaths {
    /// The keys that name files or folders.
    public static let pathKeys = ["db", "public", "tls_certificate", "tls_key"]

    /// Rewrites the paths `config` took from the file at `file` (those of
    /// `fileKeys` that no flag or variable overrode) to absolute ones.
    static func resolve(_ config: inout BlogConfig, fileKeys: Set<String>, from file: String,
                        flags: [String: String], environment: [String: String]) {
        let folder = URL(fileURLWithPath: absolute(file)).deletingLastPathComponent()
        func fromFile(_ key: String) -> Bool {
            guard fileKeys.contains(key), flags[key] == nil else { return false }
            let variable = ConfigKeys.all.first { $0.name == key }?.environmentVariable
            return variable.map { environment[$0] == nil } ?? true
        }
        func resolved(_ path: String) -> String {
            path.hasPrefix("/") ? path : folder.appendingPathComponent(path).standardizedFileURL.path
        }
        if fromFile("db"), !isDatabaseURL(config.database) { config.database = resolved(config.database) }
        if fromFile("public") { config.publicFolder = resolved(config.publicFolder) }
        if fromFile("tls_certificate") { config.tlsCertificate = config.tlsCertificate.map(resolved) }
        if fromFile("tls_key") { config.tlsKey = config.tlsKey.map(resolved) }
    }

    /// `path` from the working directory when it is relative: for messages
    /// that must say which file was meant.
    public static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent(path).standardizedFileURL.path
    }

    /// A `postgres://` or `postgresql://` URL rather than a file.
    public static func isDatabaseURL(_ db: String) -> Bool {
        let lower = db.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }
}
