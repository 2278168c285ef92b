import Foundation
import Testing
import BlogTestSupport
@testable import BlogAuth
@testable import blogd
@testable import BlogCore

@Suite("ConfigLoader")
struct ConfigLoaderTests {
    /// Loads `json` (written to a temporary file) with the given environment and flags.
    private func load(_ json: String = "{}", environment: [String: String] = [:],
                      flags: [String: String] = [:]) async throws -> BlogConfig {
        try await withTemporaryFolder { (folder: URL) async throws in
            let file = folder.appendingPathComponent("blogd.json")
            try Data(json.utf8).write(to: file)
            return try await ConfigLoader.load(file: file.path, environment: environment, flags: flags)
        }
    }

    /// The error loading `json` gives, or nil when it loads.
    private func loadError(_ json: String = "{}", environment: [String: String] = [:],
                           flags: [String: String] = [:]) async throws -> ConfigLoadError? {
        try await withTemporaryFolder { (folder: URL) async throws -> ConfigLoadError? in
            let file = folder.appendingPathComponent("blogd.json")
            try Data(json.utf8).write(to: file)
            do {
                _ = try await ConfigLoader.load(file: file.path, environment: environment, flags: flags)
                return nil
            } catch let error as ConfigLoadError {
                return error
            }
        }
    }

    private func invalidKey(_ error: ConfigLoadError?) -> String? {
        if case .invalidValue(let key, _) = error { return key }
        return nil
    }

    private static let fullFile = """
        {
          "host": "127.0.0.1",
          "port": 6000,
          "db": "/var/lib/blogd/blog.sqlite",
          "public": "/srv/www",
          "keep_alive": true,
          "max_message_bytes": 1024,
          "read_timeout": 2.5,
          "max_connections": 10,
          "event_loops": 3,
          "max_connections_per_address": 4,
          "hashes_per_address_per_second": 0.5,
          "hash_burst_per_address": 6,
          "max_hash_wait": 1.5,
          "login_lease": 60.5,
          "open_posting": true,
          "scrypt": { "log_n": 10, "r": 4, "p": 2 },
          "page_size": 20,
          "login_failures_allowed": 3,
          "login_failure_window": 30,
          "login_lockout": 90.5,
          "log_level": "debug"
        }
        """

    @Test func defaults() {
        let config = BlogConfig()
        #expect(config.host == "*")
        #expect(config.port == 51515)
        #expect(config.database == "data/blog.sqlite")
        #expect(config.publicFolder == "public")
        #expect(config.keepAlive == false)
        #expect(config.maxMessageBytes == 65_536)
        #expect(config.readTimeout == 10)
        #expect(config.maxConnections == 0)
        #expect(config.evictIdle)
        #expect(config.evictIdleAfter == 0)
        #expect(config.eventLoops == 0)
        #expect(config.maxConnectionsPerAddress == 32)
        #expect(config.hashesPerAddressPerSecond == 2)
        #expect(config.hashBurstPerAddress == 10)
        #expect(config.maxHashWait == 2)
        #expect(config.loginLease == 3600)
        #expect(config.openPosting == false)
        #expect(config.scrypt == .standard)
        #expect(config.pageSize == 50)
        #expect(config.loginFailuresAllowed == 5)
        #expect(config.loginFailureWindow == 300)
        #expect(config.loginLockout == 300)
        #expect(config.logLevel == "info")
    }

    @Test func emptyFileGivesDefaults() async throws {
        #expect(try await load("{}") == BlogConfig())
    }

    @Test func repositoryConfigFileIsTheDefaults() async throws {
        let file = repositoryRoot.appendingPathComponent("config/blogd.json").path
        #expect(try await ConfigLoader.load(file: file, environment: [:]) == BlogConfig())
    }

    @Test func fileValues() async throws {
        let config = try await load(Self.fullFile)
        #expect(config.host == "127.0.0.1")
        #expect(config.port == 6000)
        #expect(config.database == "/var/lib/blogd/blog.sqlite")
        #expect(config.publicFolder == "/srv/www")
        #expect(config.keepAlive == true)
        #expect(config.maxMessageBytes == 1024)
        #expect(config.readTimeout == 2.5)
        #expect(config.maxConnections == 10)
        #expect(config.loginLease == 60.5)
        #expect(config.openPosting == true)
        #expect(config.scrypt == ScryptParameters(logN: 10, r: 4, p: 2))
        #expect(config.pageSize == 20)
        #expect(config.loginFailuresAllowed == 3)
        #expect(config.loginFailureWindow == 30)
        #expect(config.loginLockout == 90.5)
        #expect(config.logLevel == "debug")
    }

    @Test func wholeNumbersForSecondsInTheFile() async throws {
        // "read_timeout": 5 is as natural in JSON as 5.0.
        let config = try await load(#"{"read_timeout": 5, "login_lease": 60}"#)
        #expect(config.readTimeout == 5)
        #expect(config.loginLease == 60)
    }

    @Test func partialScryptSection() async throws {
        let config = try await load(#"{"scrypt": {"log_n": 12}}"#)
        #expect(config.scrypt == ScryptParameters(logN: 12, r: 8, p: 5))
    }

    @Test func environmentOverridesFile() async throws {
        let environment = [
            "BLOGD_PORT": "7000", "BLOGD_KEEP_ALIVE": "true", "BLOGD_SCRYPT_LOG_N": "12",
            "BLOGD_HOST": "::1", "BLOGD_READ_TIMEOUT": "0.5", "BLOGD_OPEN_POSTING": "false",
            "BLOGD_LOG_LEVEL": "warning", "BLOGD_DB": "env.sqlite",
            "BLOGD_PAGE_SIZE": "9", "BLOGD_LOGIN_FAILURES_ALLOWED": "4",
        ]
        let config = try await load(Self.fullFile, environment: environment)
        #expect(config.port == 7000)
        #expect(config.keepAlive == true)
        #expect(config.scrypt == ScryptParameters(logN: 12, r: 4, p: 2))
        #expect(config.host == "::1")
        #expect(config.readTimeout == 0.5)
        #expect(config.openPosting == false)
        #expect(config.logLevel == "warning")
        #expect(config.database == "env.sqlite")
        #expect(config.pageSize == 9)
        #expect(config.loginFailuresAllowed == 4)
        // Untouched keys keep the file's values.
        #expect(config.maxConnections == 10)
        #expect(config.publicFolder == "/srv/www")
    }

    @Test func budgetsFromTheFileAndTheEnvironment() async throws {
        let file = try await load(Self.fullFile)
        #expect(file.eventLoops == 3)
        #expect(file.maxConnectionsPerAddress == 4)
        #expect(file.hashesPerAddressPerSecond == 0.5)
        #expect(file.hashBurstPerAddress == 6)
        #expect(file.maxHashWait == 1.5)
        let environment = try await load("{}", environment: [
            "BLOGD_EVENT_LOOPS": "1", "BLOGD_MAX_CONNECTIONS_PER_ADDRESS": "8",
            "BLOGD_HASHES_PER_ADDRESS_PER_SECOND": "3", "BLOGD_HASH_BURST_PER_ADDRESS": "12", "BLOGD_MAX_HASH_WAIT": "0.5",
        ])
        #expect(environment.eventLoops == 1)
        #expect(environment.maxConnectionsPerAddress == 8)
        #expect(environment.hashesPerAddressPerSecond == 3)
        #expect(environment.hashBurstPerAddress == 12)
        #expect(environment.maxHashWait == 0.5)
        #expect(invalidKey(try await loadError(#"{"max_connections_per_address": 0}"#)) == "max_connections_per_address")
        #expect(BlogConfig().budgetExempt == ["127.0.0.1", "::1"])
        let http = try await load(#"{"http_max_header_bytes": 8192, "http_timeout": 2.5, "http_max_connections": 9}"#)
        #expect(http.httpMaxHeaderBytes == 8192 && http.httpTimeout == 2.5 && http.httpMaxConnections == 9)
        #expect(invalidKey(try await loadError(#"{"http_max_connections": 0}"#)) == "http_max_connections")
        #expect(try await load(#"{"budget_exempt": ["10.0.0.1", "2001:db8::1"]}"#).budgetExempt == ["10.0.0.1", "2001:db8::1"])
        #expect(try await load(#"{"budget_exempt": []}"#).budgetExempt == [])
        #expect(try await load("{}", environment: ["BLOGD_BUDGET_EXEMPT": "10.0.0.2, ::1"]).budgetExempt == ["10.0.0.2", "::1"])
        #expect(invalidKey(try await loadError(#"{"budget_exempt": ["localhost"]}"#)) == "budget_exempt")
        #expect(invalidKey(try await loadError(#"{"hash_burst_per_address": 0}"#)) == "hash_burst_per_address")
    }

    @Test func proxyProtocolFromTheFileAndTheEnvironment() async throws {
        #expect(BlogConfig().proxyProtocol == false)
        #expect(BlogConfig().trustedProxies == [])
        let file = try await load(#"{"proxy_protocol": true, "trusted_proxies": ["10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1"]}"#)
        #expect(file.proxyProtocol)
        #expect(file.trustedProxies == ["10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1"])
        let environment = try await load(
            "{}", environment: ["BLOGD_PROXY_PROTOCOL": "true", "BLOGD_TRUSTED_PROXIES": "10.1.2.3, 172.16.0.0/12"])
        #expect(environment.proxyProtocol)
        #expect(environment.trustedProxies == ["10.1.2.3", "172.16.0.0/12"])
        for bad in ["proxy.example", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/x", "/8", "[::1]"] {
            #expect(invalidKey(try await loadError(#"{"trusted_proxies": ["\#(bad)"]}"#)) == "trusted_proxies", "\(bad)")
        }
        #expect(invalidKey(try await loadError(#"{"proxy_protocol": "maybe"}"#)) == "proxy_protocol")
        // A network is no plain address: budget_exempt still takes addresses only.
        #expect(invalidKey(try await loadError(#"{"budget_exempt": ["10.0.0.0/8"]}"#)) == "budget_exempt")
    }

    @Test func environmentOverridesDefaults() async throws {
        let config = try await load("{}", environment: ["BLOGD_KEEP_ALIVE": "yes", "BLOGD_MAX_CONNECTIONS": "5"])
        #expect(config.keepAlive == true)
        #expect(config.maxConnections == 5)
    }

    @Test func otherEnvironmentVariablesAreIgnored() async throws {
        let config = try await load("{}", environment: ["PORT": "1", "port": "2", "BLOG_PORT": "3", "HOST": "x"])
        #expect(config == BlogConfig())
    }

    @Test func flagsOverrideEnvironment() async throws {
        let config = try await load(
            Self.fullFile,
            environment: ["BLOGD_PORT": "7000", "BLOGD_SCRYPT_LOG_N": "12", "BLOGD_KEEP_ALIVE": "true"],
            flags: ["port": "8000", "scrypt.log_n": "11", "keep_alive": "false", "public": "flag-public"])
        #expect(config.port == 8000)
        #expect(config.scrypt.logN == 11)
        #expect(config.keepAlive == false)
        #expect(config.publicFolder == "flag-public")
    }

    @Test(arguments: ["true", "TRUE", "yes", "1", "on"])
    func trueSpellings(text: String) async throws {
        #expect(try await load(environment: ["BLOGD_KEEP_ALIVE": text]).keepAlive == true)
    }

    @Test(arguments: ["false", "False", "no", "0", "off"])
    func falseSpellings(text: String) async throws {
        #expect(try await load(#"{"keep_alive": true}"#, environment: ["BLOGD_KEEP_ALIVE": text]).keepAlive == false)
    }

    @Test func missingExplicitFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).json").path
        await #expect(throws: ConfigLoadError.missingFile(path)) {
            try await ConfigLoader.load(file: path, environment: [:])
        }
    }

    @Test func folderAsFile() async throws {
        try await withTemporaryFolder { (folder: URL) async throws in
            do {
                _ = try await ConfigLoader.load(file: folder.path, environment: [:])
                Issue.record("a folder loaded as a config file")
            } catch let error as ConfigLoadError {
                guard case .unreadableFile(let path, _) = error else {
                    Issue.record("expected unreadableFile, got \(error)")
                    return
                }
                #expect(path == folder.path)
            }
        }
    }

    @Test(arguments: ["{", "not json", "{\"port\": }", "", "[1, 2]", "\"port\""])
    func malformedJSON(text: String) async throws {
        let error = try await loadError(text)
        guard case .invalidJSON = error else {
            Issue.record("expected invalidJSON, got \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("\n") == false)
    }

    /// A misspelt key is refused, named, with the nearest known key; a
    /// nested one too; keys starting with `_` are comments.
    @Test func unknownKeysAreRefusedWithTheNearestKnownOne() async throws {
        let misspelt = try await loadError(#"{"port": 0, "post_byte_per_address_per_second": 5}"#)
        guard case .unknownKey("post_byte_per_address_per_second", _, let nearest) = misspelt else {
            Issue.record("expected unknownKey, got \(String(describing: misspelt))")
            return
        }
        #expect(nearest == "post_bytes_per_address_per_second")
        #expect(misspelt?.description.hasSuffix("(did you mean 'post_bytes_per_address_per_second'?)") == true)
        if case .unknownKey(let key, _, let nearest) = try await loadError(#"{"scrypt": {"log_m": 12}}"#) {
            #expect(key == "scrypt.log_m" && nearest == "scrypt.log_n")
        } else {
            Issue.record("a nested unknown key was accepted")
        }
        if case .unknownKey(_, _, let nearest) = try await loadError(#"{"completely_different_thing": 1}"#) {
            #expect(nearest == nil, "no suggestion when nothing is close")
        } else {
            Issue.record("an unknown key was accepted")
        }
        #expect(try await loadError(#"{"_comment": "mine", "port": 7}"#) == nil)
    }

    /// A value for every key, other than its default.
    private static let otherValues: [String: String] = [
        "host": #""127.0.0.1""#, "port": "6001", "db": #""x.sqlite""#, "storage_deadline": "4",
        "public": #""www""#, "http_port": "8081", "http_max_header_bytes": "4096", "http_timeout": "3",
        "http_max_connections": "10", "metrics_port": "9151", "metrics_host": #""::1""#, "http_max_connections_per_address": "3", "http_access_log": "true",
        "base_url": #""https://blog.example.org/""#, "keep_alive": "true", "max_message_bytes": "2048",
        "read_timeout": "2", "max_connections": "50", "evict_idle": "false", "evict_idle_after": "5",
        "event_loops": "2", "max_connections_per_address": "5", "hashes_per_address_per_second": "3",
        "hash_burst_per_address": "4", "max_hash_wait": "1", "post_bytes_per_address_per_second": "1000",
        "post_burst_bytes_per_address": "5000", "budget_exempt": #"["10.0.0.1"]"#, "busy_delay": "0.5",
        "proxy_protocol": "true", "trusted_proxies": #"["10.0.0.0/8"]"#, "login_lease": "60",
        "open_posting": "true", "registration": #""closed""#, "check_pages_at_start": "false",
        "scrypt.log_n": "12", "scrypt.r": "4", "scrypt.p": "2", "page_size": "10", "page_bytes": "4096",
        "trash_days": "7",
        "login_failures_allowed": "2", "login_failure_window": "20", "login_lockout": "40", "log_level": #""debug""#,
        "outgoing_allow_private": "true", "outgoing_timeout": "3", "outgoing_max_bytes": "4096",
        "outgoing_concurrency": "2", "webmention_rate": "0.5", "webmention_burst": "3",
        "https_port": "8443", "tls_certificate": #""/etc/blogd/cert.pem""#, "tls_key": #""/etc/blogd/key.pem""#,
        "http_redirect_https": "true", "web_client": "false",
        "webmention_send": "false",
        "inbox_rate": "2", "inbox_burst": "7",
        "tag_pages_rate": "1", "tag_pages_burst": "4", "search_rate": "0.5", "search_burst": "3",
        "indieauth_authorization_rate": "0.1", "indieauth_authorization_burst": "5",
        "indieauth_token_rate": "0.2", "indieauth_token_burst": "6",
        "blog_settings_rate": "0.05", "blog_settings_burst": "2",
        "webmention_send_first_retry": "30", "webmention_send_max_retry": "3600", "webmention_send_attempts": "3",
        "webmention_verify_first_retry": "10", "webmention_verify_attempts": "2",
    ]

    /// What a key needs beside it to be valid at all: set with those, it
    /// must still change the config.
    static let companions: [String: String] = [
        "https_port": #""http_port": 8080, "tls_certificate": "c.pem", "tls_key": "k.pem""#,
        "http_redirect_https": #""http_port": 8080, "https_port": 8443, "tls_certificate": "c.pem", "tls_key": "k.pem""#,
    ]

    /// Every key the table lists is one the loader reads: set alone in the
    /// file to a value other than its default, it changes the config.
    @Test func everyListedKeyIsReadByTheLoader() async throws {
        #expect(ConfigKeys.names.count == ConfigKeys.all.count, "no key listed twice")
        #expect(Set(Self.otherValues.keys) == ConfigKeys.names)
        for key in ConfigKeys.all {
            guard let value = Self.otherValues[key.name] else { continue }
            let parts = key.name.split(separator: ".")
            let json = parts.count == 2 ? #"{"\#(parts[0])": {"\#(parts[1])": \#(value)}}"# : #"{"\#(key.name)": \#(value)}"#
            if let companions = Self.companions[key.name] {
                let alone = try await load("{\(companions)}")
                #expect(try await load("{\(companions), " + json.dropFirst()) != alone, "\(key.name) is listed but not read")
                continue
            }
            #expect(try await load(json) != BlogConfig(), "\(key.name) is listed but not read")
            #expect(key.environmentVariable.hasPrefix("BLOGD_") && !key.defaultText.isEmpty)
        }
        #expect(ConfigKeys.helpTable.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    /// The repository's own config file holds only known keys.
    @Test func theRepositoryConfigFileHasOnlyKnownKeys() throws {
        #expect(throws: Never.self) { try ConfigLoader.checkKeys(repositoryRoot.appendingPathComponent("config/blogd.json").path) }
    }

    /// Days in the trash: a key, an environment variable, a range.
    @Test func trashDays() async throws {
        #expect(try await load("{}").trashDays == 30)
        #expect(try await load(#"{"trash_days": 0}"#).serviceSettings.trashDays == 0)
        #expect(try await load("{}", environment: ["BLOGD_TRASH_DAYS": "90"]).trashDays == 90)
        #expect(invalidKey(try await loadError(environment: ["BLOGD_TRASH_DAYS": "-1"])) == "trash_days")
        #expect(invalidKey(try await loadError(#"{"trash_days": 3651}"#)) == "trash_days")
    }

    @Test func portNotANumber() async throws {
        #expect(invalidKey(try await loadError(environment: ["BLOGD_PORT": "abc"])) == "port")
        #expect(invalidKey(try await loadError(flags: ["port": "12ab"])) == "port")
        #expect(invalidKey(try await loadError(#"{"port": "http"}"#)) == "port")
    }

    @Test func portOutOfRange() async throws {
        #expect(invalidKey(try await loadError(#"{"port": 70000}"#)) == "port")
        #expect(invalidKey(try await loadError(#"{"port": -1}"#)) == "port")
        #expect(invalidKey(try await loadError(environment: ["BLOGD_PORT": "65536"])) == "port")
        #expect(try await load(environment: ["BLOGD_PORT": "65535"]).port == 65535)
        #expect(try await load(environment: ["BLOGD_PORT": "0"]).port == 0)
    }

    /// HTTPS needs its certificate, its key and the page server; a
    /// redirect needs somewhere to go.
    @Test func httpsNeedsItsParts() async throws {
        #expect(invalidKey(try await loadError(#"{"http_port": 80, "https_port": 443}"#)) == "https_port")
        #expect(invalidKey(try await loadError(#"{"http_port": 80, "https_port": 443, "tls_certificate": "c.pem"}"#)) == "https_port")
        #expect(invalidKey(try await loadError(#"{"https_port": 443, "tls_certificate": "c.pem", "tls_key": "k.pem"}"#)) == "https_port")
        #expect(invalidKey(try await loadError(#"{"http_port": 80, "http_redirect_https": true}"#)) == "http_redirect_https")
        // One port, one listener.
        #expect(invalidKey(try await loadError(#"{"http_port": 8443, "https_port": 8443, "tls_certificate": "c.pem", "tls_key": "k.pem"}"#)) == "https_port")
        #expect(invalidKey(try await loadError(#"{"port": 8443, "http_port": 80, "https_port": 8443, "tls_certificate": "c.pem", "tls_key": "k.pem"}"#)) == "https_port")
        let config = try await load(#"{"host": "blog.example", "http_port": 80, "https_port": 443, "tls_certificate": "c.pem", "tls_key": "k.pem", "http_redirect_https": true}"#)
        // Relative in the file: read from the file's folder (ConfigPathsTests).
        #expect(config.httpsPort == 443 && config.tlsCertificate?.hasSuffix("/c.pem") == true
                && config.tlsKey?.hasSuffix("/k.pem") == true)
        // Feeds link where readers are sent.
        #expect(config.effectiveBaseURL == "https://blog.example/")
        let both = try await load(#"{"host": "blog.example", "http_port": 8080, "https_port": 8443, "tls_certificate": "c.pem", "tls_key": "k.pem"}"#)
        #expect(both.effectiveBaseURL == "http://blog.example:8080/")
    }

    @Test func badLogLevel() async throws {
        #expect(invalidKey(try await loadError(#"{"log_level": "loud"}"#)) == "log_level")
        #expect(invalidKey(try await loadError(environment: ["BLOGD_LOG_LEVEL": "INFO"])) == "log_level")
        for level in ["trace", "debug", "info", "notice", "warning", "error", "critical"] {
            #expect(try await load(environment: ["BLOGD_LOG_LEVEL": level]).logLevel == level)
        }
    }

    @Test func otherInvalidValues() async throws {
        #expect(invalidKey(try await loadError(environment: ["BLOGD_KEEP_ALIVE": "maybe"])) == "keep_alive")
        #expect(invalidKey(try await loadError(#"{"max_message_bytes": 8}"#)) == "max_message_bytes")
        #expect(invalidKey(try await loadError(#"{"max_connections": -1}"#)) == "max_connections")
        #expect(invalidKey(try await loadError(#"{"evict_idle_after": -1}"#)) == "evict_idle_after")
        #expect(invalidKey(try await loadError(#"{"read_timeout": 0}"#)) == "read_timeout")
        #expect(invalidKey(try await loadError(environment: ["BLOGD_READ_TIMEOUT": "soon"])) == "read_timeout")
        #expect(invalidKey(try await loadError(#"{"login_lease": -1}"#)) == "login_lease")
        #expect(invalidKey(try await loadError(#"{"scrypt": {"r": 33}}"#)) == "scrypt.r")
        #expect(invalidKey(try await loadError(#"{"scrypt": {"p": 0}}"#)) == "scrypt.p")
        #expect(invalidKey(try await loadError(environment: ["BLOGD_SCRYPT_LOG_N": "21"])) == "scrypt.log_n")
        #expect(invalidKey(try await loadError(#"{"host": ""}"#)) == "host")
        #expect(invalidKey(try await loadError(#"{"page_size": 0}"#)) == "page_size")
        #expect(invalidKey(try await loadError(#"{"page_size": 10001}"#)) == "page_size")
        #expect(invalidKey(try await loadError(#"{"login_failures_allowed": 0}"#)) == "login_failures_allowed")
        #expect(invalidKey(try await loadError(#"{"login_failure_window": -1}"#)) == "login_failure_window")
        #expect(invalidKey(try await loadError(environment: ["BLOGD_LOGIN_LOCKOUT": "forever"])) == "login_lockout")
        #expect(invalidKey(try await loadError(environment: ["BLOGD_DB": ""])) == "db")
    }

    @Test func serviceSettingsFollowTheConfig() {
        var config = BlogConfig()
        config.openPosting = true
        config.loginLease = 12
        config.scrypt = .testing
        config.pageSize = 7
        config.loginFailuresAllowed = 2
        config.loginFailureWindow = 20
        config.loginLockout = 40
        let settings = config.serviceSettings
        #expect(settings.openPosting == true)
        #expect(settings.loginLease == 12)
        #expect(settings.scrypt == .testing)
        #expect(settings.pageSize == 7)
        #expect(settings.loginThrottle == LoginThrottle.Policy(allowedFailures: 2, window: 20, lockout: 40))
    }

    @Test func errorDescriptionsAreOneLine() {
        let errors: [ConfigLoadError] = [
            .missingFile("config/x.json"),
            .unreadableFile("config/x.json", reason: "bad"),
            .invalidValue(key: "port", reason: "'abc' is not a whole number"),
        ]
        #expect(errors[0].description == "config file not found: config/x.json")
        #expect(errors[1].description == "cannot read config file config/x.json: bad")
        #expect(errors[2].description == "invalid config value for port: 'abc' is not a whole number")
        #expect(errors.allSatisfy { !$0.description.contains("\n") })
        #expect(ConfigLoadError.unknownKey("hots", file: "b.json", nearest: "host").description
                == "unknown config key 'hots' in b.json (did you mean 'host'?)")
    }
}
