import Configuration
import Foundation
import SystemPackage

/// Why a configuration could not be loaded; each reads as one clear line.
public enum ConfigLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingFile(String)
    case unreadableFile(String, reason: String)
    case invalidValue(key: String, reason: String)
    case invalidJSON(String, reason: String)
    case unknownKey(String, file: String, nearest: String?)

    public var description: String {
        switch self {
        case .invalidJSON(let path, let reason): "config file \(path) is not valid JSON: \(reason)"
        case .unknownKey(let key, let path, let nearest):
            "unknown config key '\(key)' in \(path)" + (nearest.map { " (did you mean '\($0)'?)" } ?? "")
        case .missingFile(let path): "config file not found: \(path)"
        case .unreadableFile(let path, let reason): "cannot read config file \(path): \(reason)"
        case .invalidValue(let key, let reason): "invalid config value for \(key): \(reason)"
        }
    }
}

/// Reads a `BlogConfig` from, lowest priority first: built-in defaults, the
/// JSON file, `BLOGD_*` environment variables, then command-line flags.
public enum ConfigLoader {
    /// The file read when none is named.
    public static let defaultFile = "config/blogd.json"

    /// - Parameters:
    ///   - file: a JSON file; when `nil`, `defaultFile` is read if present.
    ///   - environment: the process environment (only `BLOGD_*` is read).
    ///   - flags: values from the command line, by config key.
    public static func load(
        file: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        flags: [String: String] = [:]
    ) async throws(ConfigLoadError) -> BlogConfig {
        var providers: [any ConfigProvider] = []
        providers.append(InMemoryProvider(name: "flags", values: flagValues(flags)))
        providers.append(EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "blogd"))
        let fileRead = try await fileProvider(file)
        if let fileRead { providers.append(fileRead.provider) }
        let reader = ConfigReader(providers: providers)
        var config: BlogConfig
        do {
            config = try read(reader)
        } catch let error as ConfigLoadError {
            throw error
        } catch {
            throw .invalidValue(key: "?", reason: "\(error)")
        }
        if let fileRead {
            ConfigPaths.resolve(&config, fileKeys: fileRead.keys, from: fileRead.path, flags: flags, environment: environment)
        }
        return config
    }

    /// The file `load(file:)` reads: `file`, or `defaultFile` when it
    /// exists; nil when there is none to read.
    public static func fileToRead(_ file: String?) -> String? {
        if let file { return file }
        return FileManager.default.fileExists(atPath: defaultFile) ? defaultFile : nil
    }

    private static func fileProvider(_ file: String?) async throws(ConfigLoadError)
        -> (provider: any ConfigProvider, path: String, keys: Set<String>)? {
        let path = file ?? defaultFile
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            if file == nil { return nil }
            throw .missingFile(path)
        }
        guard !isFolder.boolValue, FileManager.default.isReadableFile(atPath: path) else {
            throw .unreadableFile(path, reason: "not a readable file")
        }
        let keys = try checkKeys(path)
        do {
            return (try await FileProvider<JSONSnapshot>(filePath: FilePath(path)), path, keys)
        } catch {
            throw .unreadableFile(path, reason: "\(error)")
        }
    }

    /// Refuses a file that is not a JSON object or holds a key blogd does
    /// not know: a misspelt key would otherwise be ignored without a word.
    /// Keys starting with `_` are comments. Returns the keys it holds.
    @discardableResult
    static func checkKeys(_ path: String) throws(ConfigLoadError) -> Set<String> {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadableFile(path, reason: "not a readable file")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .invalidJSON(path, reason: oneLine(error))
        }
        guard let top = object as? [String: Any] else { throw .invalidJSON(path, reason: "not an object of keys") }
        let keys = flattenedKeys(top, prefix: "")
        for key in keys where !ConfigKeys.names.contains(key) {
            throw .unknownKey(key, file: path, nearest: ConfigKeys.nearest(to: key))
        }
        return Set(keys)
    }

    private static func flattenedKeys(_ object: [String: Any], prefix: String) -> [String] {
        object.keys.sorted().filter { !$0.hasPrefix("_") }.flatMap { key -> [String] in
            if let inner = object[key] as? [String: Any] { return flattenedKeys(inner, prefix: prefix + key + ".") }
            return [prefix + key]
        }
    }

    /// Foundation's parse errors carry the useful part (what, where) in
    /// their debug description.
    private static func oneLine(_ error: any Error) -> String {
        let info = (error as NSError).userInfo
        let text = (info["NSDebugDescription"] as? String) ?? (error as NSError).localizedDescription
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func flagValues(_ flags: [String: String]) -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in flags {
            values[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = ConfigValue(.string(value), isSecret: false)
        }
        return values
    }

    private static func read(_ reader: ConfigReader) throws -> BlogConfig {
        var config = BlogConfig()
        config.host = try string(reader, "host", config.host)
        config.port = try int(reader, "port", config.port, 0...65535)
        if reader.int(forKey: "http_port") != nil || reader.string(forKey: "http_port") != nil {
            config.httpPort = try int(reader, "http_port", 0, 0...65535)
        }
        config.httpMaxHeaderBytes = try int(reader, "http_max_header_bytes", config.httpMaxHeaderBytes, 1024...(1 << 20))
        config.httpTimeout = try double(reader, "http_timeout", config.httpTimeout, 0.01...3600)
        config.httpMaxConnections = try int(reader, "http_max_connections", config.httpMaxConnections, 1...1_000_000)
        config.httpMaxConnectionsPerAddress = try int(reader, "http_max_connections_per_address", config.httpMaxConnectionsPerAddress, 1...1_000_000)
        config.httpAccessLog = try bool(reader, "http_access_log", config.httpAccessLog)
        if reader.int(forKey: "https_port") != nil || reader.string(forKey: "https_port") != nil {
            config.httpsPort = try int(reader, "https_port", 0, 0...65535)
        }
        config.tlsCertificate = reader.string(forKey: "tls_certificate").flatMap { $0.isEmpty ? nil : $0 }
        config.tlsKey = reader.string(forKey: "tls_key").flatMap { $0.isEmpty ? nil : $0 }
        config.httpRedirectHTTPS = try bool(reader, "http_redirect_https", config.httpRedirectHTTPS)
        config.webClient = try bool(reader, "web_client", config.webClient)
        config.webmentionSend = try bool(reader, "webmention_send", config.webmentionSend)
        if config.httpsPort != nil && (config.tlsCertificate == nil || config.tlsKey == nil) {
            throw ConfigLoadError.invalidValue(key: "https_port", reason: "HTTPS needs tls_certificate and tls_key")
        }
        if config.httpsPort != nil && config.httpPort == nil {
            // One page server answers both, and it starts with http_port.
            throw ConfigLoadError.invalidValue(key: "https_port", reason: "HTTPS comes with http_port (set http_redirect_https to send everyone to HTTPS)")
        }
        if let https = config.httpsPort, https != 0, https == config.httpPort || https == config.port {
            throw ConfigLoadError.invalidValue(key: "https_port", reason: "\(https) is also the port of \(https == config.port ? "the blog protocol" : "plain HTTP")")
        }
        if config.httpRedirectHTTPS && config.httpsPort == nil {
            throw ConfigLoadError.invalidValue(key: "http_redirect_https", reason: "there is no https_port to send anyone to")
        }
        if reader.int(forKey: "metrics_port") != nil || reader.string(forKey: "metrics_port") != nil {
            config.metricsPort = try int(reader, "metrics_port", 0, 0...65535)
        }
        config.metricsHost = try string(reader, "metrics_host", config.metricsHost)
        config.database = try string(reader, "db", config.database)
        config.storageDeadline = try double(reader, "storage_deadline", config.storageDeadline, 0.1...600)
        config.publicFolder = try string(reader, "public", config.publicFolder)
        config.keepAlive = try bool(reader, "keep_alive", config.keepAlive)
        config.maxMessageBytes = try int(reader, "max_message_bytes", config.maxMessageBytes, 16...(64 << 20))
        config.readTimeout = try double(reader, "read_timeout", config.readTimeout, 0.01...86_400)
        config.maxConnections = try int(reader, "max_connections", config.maxConnections, 0...1_000_000)
        config.evictIdle = try bool(reader, "evict_idle", config.evictIdle)
        config.evictIdleAfter = try double(reader, "evict_idle_after", config.evictIdleAfter, 0...86_400)
        config.eventLoops = try int(reader, "event_loops", config.eventLoops, 0...64)
        config.maxConnectionsPerAddress = try int(reader, "max_connections_per_address", config.maxConnectionsPerAddress, 1...1_000_000)
        config.hashesPerAddressPerSecond = try double(reader, "hashes_per_address_per_second", config.hashesPerAddressPerSecond, 0.001...1_000_000)
        config.hashBurstPerAddress = try int(reader, "hash_burst_per_address", config.hashBurstPerAddress, 1...1_000_000)
        config.maxHashWait = try double(reader, "max_hash_wait", config.maxHashWait, 0.001...3600)
        config.postBytesPerAddressPerSecond = try int(reader, "post_bytes_per_address_per_second", config.postBytesPerAddressPerSecond, 1...(1 << 40))
        config.postBurstBytesPerAddress = try int(reader, "post_burst_bytes_per_address", config.postBurstBytesPerAddress, 1...(1 << 40))
        config.budgetExempt = try addresses(reader, "budget_exempt", config.budgetExempt)
        config.proxyProtocol = try bool(reader, "proxy_protocol", config.proxyProtocol)
        config.trustedProxies = try addresses(reader, "trusted_proxies", config.trustedProxies, networks: true)
        config.busyDelay = try double(reader, "busy_delay", config.busyDelay, 0...60)
        config.loginLease = try double(reader, "login_lease", config.loginLease, 0...(365 * 86_400))
        config.openPosting = try bool(reader, "open_posting", config.openPosting)
        config.checkPagesAtStart = try bool(reader, "check_pages_at_start", config.checkPagesAtStart)
        switch try string(reader, "registration", config.registrationOpen ? "open" : "closed") {
        case "open": config.registrationOpen = true
        case "closed": config.registrationOpen = false
        case let other: throw ConfigLoadError.invalidValue(key: "registration", reason: "'\(other)' is neither open nor closed")
        }
        if let base = reader.string(forKey: "base_url") {
            guard let url = URLComponents(string: base), ["http", "https"].contains(url.scheme ?? ""),
                  !(url.host ?? "").isEmpty else {
                throw ConfigLoadError.invalidValue(key: "base_url", reason: "'\(base)' is not an http(s) URL with a host")
            }
            config.baseURL = base
        }
        config.scrypt.logN = try int(reader, "scrypt.log_n", config.scrypt.logN, 1...20)
        config.scrypt.r = try int(reader, "scrypt.r", config.scrypt.r, 1...32)
        config.scrypt.p = try int(reader, "scrypt.p", config.scrypt.p, 1...16)
        guard config.scrypt.isValid else {
            throw ConfigLoadError.invalidValue(key: "scrypt", reason: "\(config.scrypt) is a cost BoringSSL refuses (N must be below 2^(16r); r above 16 needs p of 2 or more)")
        }
        config.pageSize = try int(reader, "page_size", config.pageSize, 1...10_000)
        config.pageBytes = try int(reader, "page_bytes", config.pageBytes, 1024...(64 << 20))
        config.trashDays = try int(reader, "trash_days", config.trashDays, 0...3650)
        config.loginFailuresAllowed = try int(reader, "login_failures_allowed", config.loginFailuresAllowed, 1...1_000_000)
        config.loginFailureWindow = try double(reader, "login_failure_window", config.loginFailureWindow, 0...(365 * 86_400))
        config.loginLockout = try double(reader, "login_lockout", config.loginLockout, 0...(365 * 86_400))
        config.logLevel = try string(reader, "log_level", config.logLevel)
        guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(config.logLevel) else {
            throw ConfigLoadError.invalidValue(key: "log_level", reason: "'\(config.logLevel)' is not a log level")
        }
        config.outgoingAllowPrivate = try bool(reader, "outgoing_allow_private", config.outgoingAllowPrivate)
        config.outgoingTimeout = try double(reader, "outgoing_timeout", config.outgoingTimeout, 1...600)
        config.outgoingMaxBytes = try int(reader, "outgoing_max_bytes", config.outgoingMaxBytes, 1024...(64 << 20))
        config.outgoingConcurrency = try int(reader, "outgoing_concurrency", config.outgoingConcurrency, 1...256)
        config.webmentionRate = try double(reader, "webmention_rate", config.webmentionRate, 0...1000)
        config.webmentionBurst = try double(reader, "webmention_burst", config.webmentionBurst, 1...100_000)
        config.inboxRate = try double(reader, "inbox_rate", config.inboxRate, 0...1000)
        config.inboxBurst = try double(reader, "inbox_burst", config.inboxBurst, 1...100_000)
        try readReadingAndRetry(reader, into: &config)
        return config
    }

    // Values arrive as JSON numbers and booleans from the file, but as
    // strings from the environment and flags: accept both forms.

    private static func string(_ reader: ConfigReader, _ key: String, _ fallback: String) throws -> String {
        let value = reader.string(forKey: ConfigKey(key)) ?? fallback
        guard !value.isEmpty else { throw ConfigLoadError.invalidValue(key: key, reason: "empty") }
        return value
    }

    static func int(_ reader: ConfigReader, _ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
        try number(key, reader.int(forKey: ConfigKey(key)), reader.string(forKey: ConfigKey(key)), fallback, range,
                   kind: "a whole number")
    }

    static func double(_ reader: ConfigReader, _ key: String, _ fallback: Double, _ range: ClosedRange<Double>) throws -> Double {
        try number(key, reader.double(forKey: ConfigKey(key)), reader.string(forKey: ConfigKey(key)), fallback, range,
                   kind: "a number")
    }

    private static func number<N: LosslessStringConvertible & Comparable>(
        _ key: String, _ typed: N?, _ text: String?, _ fallback: N, _ range: ClosedRange<N>, kind: String
    ) throws -> N {
        let value: N
        if let typed {
            value = typed
        } else if let text {
            guard let parsed = N(text.trimmingCharacters(in: .whitespaces)) else {
                throw ConfigLoadError.invalidValue(key: key, reason: "'\(text)' is not \(kind)")
            }
            value = parsed
        } else {
            value = fallback
        }
        guard range.contains(value) else {
            throw ConfigLoadError.invalidValue(key: key, reason: "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A list of numeric IP addresses (with `networks`, CIDR networks such
    /// as `10.0.0.0/8` too): a JSON array, or (environment, flags) a
    /// comma-separated string; empty is allowed.
    private static func addresses(_ reader: ConfigReader, _ key: String, _ fallback: [String],
                                  networks: Bool = false) throws -> [String] {
        let values: [String]
        if let list = reader.stringArray(forKey: ConfigKey(key)) {
            values = list
        } else if let text = reader.string(forKey: ConfigKey(key)) {
            values = text.split(separator: ",").map(String.init)
        } else {
            return fallback
        }
        let trimmed = values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for address in trimmed where !(networks ? isNetwork(address) : isNumericAddress(address)) {
            let kind = networks ? "an IPv4 or IPv6 address or network" : "an IPv4 or IPv6 address"
            throw ConfigLoadError.invalidValue(key: key, reason: "'\(address)' is not \(kind)")
        }
        return trimmed
    }

    /// An address, or one with a prefix length its family allows
    /// (`10.0.0.0/8`, `fd00::/8`).
    private static func isNetwork(_ text: String) -> Bool {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let address = String(parts[0])
        guard isNumericAddress(address) else { return false }
        guard parts.count == 2 else { return true }
        let maximum = address.contains(":") ? 128 : 32
        guard parts[1].allSatisfy(\.isASCII), let length = Int(parts[1]) else { return false }
        return (0...maximum).contains(length)
    }

    private static func isNumericAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    private static func bool(_ reader: ConfigReader, _ key: String, _ fallback: Bool) throws -> Bool {
        if let flag = reader.bool(forKey: ConfigKey(key)) { return flag }
        guard let text = reader.string(forKey: ConfigKey(key)) else { return fallback }
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw ConfigLoadError.invalidValue(key: key, reason: "'\(text)' is not true or false")
        }
    }
}
