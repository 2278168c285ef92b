import Foundation

/// Where a PostgreSQL database is, from a `postgres://` URL:
///
///     postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]
///     postgresql://blog@%2Fvar%2Frun%2Fpostgresql/blog     (a Unix socket folder)
///     postgres://blog@localhost/blog?host=/var/run/postgresql
///
/// The password comes from the URL or, when the URL has none, from
/// `PGPASSWORD`. `description` never shows it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How the connection uses TLS, as libpq's `sslmode`: `prefer` and
    /// `require` encrypt without checking the certificate; `verify-full`
    /// checks it and the host name.
    public enum TLSMode: String, Sendable, Equatable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    /// A host name or address, or (starting with `/`) the folder of the
    /// server's Unix socket.
    public var host: String
    public var port: Int
    public var database: String
    public var tls: TLSMode

    public init(user: String, password: String?, host: String, port: Int = 5432, database: String, tls: TLSMode = .prefer) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.tls = tls
    }

    /// Whether `text` is a PostgreSQL URL rather than a SQLite path.
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Why a URL cannot be used; the message never holds the password.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { "invalid PostgreSQL URL: \(reason)" }
    }

    /// Parses `url`; `environment` supplies `PGPASSWORD`.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) {
        guard Self.isURL(url), let schemeEnd = url.range(of: "://") else { throw Invalid(reason: "not postgres:// or postgresql://") }
        var rest = Substring(url[schemeEnd.upperBound...])
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = slash < rest.endIndex ? rest[rest.index(after: slash)...] : ""
        // The password may hold '@': the user part ends at the last one.
        guard let at = authority.lastIndex(of: "@") else { throw Invalid(reason: "no user (postgres://USER@HOST/DATABASE)") }
        let userInfo = authority[..<at]
        let hostPort = authority[authority.index(after: at)...]
        let userPart: Substring
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            userPart = userInfo[..<colon]
            password = try Self.decode(userInfo[userInfo.index(after: colon)...], "password")
        } else {
            userPart = userInfo
        }
        let user = try Self.decode(userPart, "user")
        guard !user.isEmpty else { throw Invalid(reason: "no user (postgres://USER@HOST/DATABASE)") }

        var host: String
        var port = 5432
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            // An IPv6 literal: [::1]:5432.
            guard let close = hostPort.firstIndex(of: "]") else { throw Invalid(reason: "unclosed [ in the host") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Invalid(reason: "unexpected text after the host") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = try Self.decode(hostPort[..<colon], "host")
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = try Self.decode(hostPort, "host")
        }
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw Invalid(reason: "port '\(portText)' is not a number from 1 to 65535")
            }
            port = number
        }

        var tls = TLSMode.prefer
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0]
            let value = try Self.decode(parts.count > 1 ? parts[1] : "", String(key))
            switch key {
            case "host": host = value
            case "port":
                guard let number = Int(value), (1...65535).contains(number) else {
                    throw Invalid(reason: "port '\(value)' is not a number from 1 to 65535")
                }
                port = number
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw Invalid(reason: "sslmode '\(value)' is not disable, prefer, require or verify-full")
                }
                tls = mode
            default:
                // Silently ignoring a setting (say, a TLS one) could weaken
                // the connection without anyone noticing.
                throw Invalid(reason: "unsupported parameter '\(key)'")
            }
        }
        guard !host.isEmpty else { throw Invalid(reason: "no host") }
        let database = try Self.decode(path, "database")
        guard !database.isEmpty, !database.contains("/") else { throw Invalid(reason: "no database (postgres://USER@HOST/DATABASE)") }

        self.init(user: user, password: password ?? environment["PGPASSWORD"], host: host, port: port,
                  database: database, tls: tls)
    }

    /// Whether `host` names a Unix socket folder.
    public var isUnixSocket: Bool { host.hasPrefix("/") }

    /// The server's socket file, for a Unix socket folder (as libpq names it).
    public var unixSocketPath: String? {
        isUnixSocket ? "\(host)/.s.PGSQL.\(port)" : nil
    }

    /// The URL without the password, for logs and messages.
    public var description: String {
        let shownHost: String
        if isUnixSocket {
            shownHost = host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host
        } else {
            shownHost = host.contains(":") ? "[\(host)]" : host
        }
        let secret = password == nil ? "" : ":***"
        let mode = tls == .prefer ? "" : "?sslmode=\(tls.rawValue)"
        return "postgres://\(user)\(secret)@\(shownHost):\(port)/\(database)\(mode)"
    }

    private static func decode(_ text: Substring, _ what: String) throws(Invalid) -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw Invalid(reason: "bad %-escape in the \(what)")
        }
        return decoded
    }
}
