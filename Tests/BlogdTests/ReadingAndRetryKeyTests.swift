import Foundation
import Testing
import BlogTestSupport
@testable import BlogApp
@testable import BlogCore
@testable import blogd

/// The budgets of tag pages, search, IndieAuth and blog settings, and the
/// Webmention sender's and verifier's retries: keys, environment
/// variables and ranges, and the objects blogd builds from them.
struct ReadingAndRetryKeyTests {
    private func load(_ json: String = "{}", environment: [String: String] = [:]) async throws -> BlogConfig {
        try await withTemporaryFolder { (folder: URL) async throws in
            let file = folder.appendingPathComponent("blogd.json")
            try Data(json.utf8).write(to: file)
            return try await ConfigLoader.load(file: file.path, environment: environment)
        }
    }

    /// The key a refused value names, or nil when it loads.
    private func refusedKey(_ json: String = "{}", environment: [String: String] = [:]) async throws -> String? {
        do {
            _ = try await load(json, environment: environment)
            return nil
        } catch let error as ConfigLoadError {
            guard case .invalidValue(let key, _) = error else { return "?" }
            return key
        }
    }

    @Test func defaultsAreTheOnesInTheCode() {
        let config = BlogConfig()
        #expect(config.tagPagesBudget.perSecond == 5 && config.tagPagesBudget.burst == 20)
        #expect(config.searchBudget.perSecond == 2 && config.searchBudget.burst == 10)
        let indieAuth = config.indieAuthBudget
        #expect(indieAuth.perMinute == 30 && indieAuth.burst == 30)
        #expect(indieAuth.tokenPerMinute == 30 && indieAuth.tokenBurst == 30)
        let sender = config.webmentionSenderSettings, senderDefaults = WebmentionSender.Settings()
        #expect(sender.firstRetry == senderDefaults.firstRetry && sender.maxRetry == senderDefaults.maxRetry
                && sender.maxAttempts == senderDefaults.maxAttempts)
        let verifier = config.webmentionVerifierSettings, verifierDefaults = WebmentionVerifier.Settings()
        #expect(verifier.firstRetry == verifierDefaults.firstRetry && verifier.maxAttempts == verifierDefaults.maxAttempts)
        #expect(verifier.concurrency == 4, "half of outgoing_concurrency, as before")
    }

    @Test func fromTheFile() async throws {
        let config = try await load("""
            {"tag_pages_rate": 1, "tag_pages_burst": 4, "search_rate": 0.5, "search_burst": 3,
             "indieauth_authorization_rate": 0.1, "indieauth_authorization_burst": 5,
             "indieauth_token_rate": 0.25, "indieauth_token_burst": 6,
             "blog_settings_rate": 0.05, "blog_settings_burst": 2,
             "webmention_send_first_retry": 30, "webmention_send_max_retry": 3600, "webmention_send_attempts": 3,
             "webmention_verify_first_retry": 10, "webmention_verify_attempts": 2}
            """)
        #expect(config.tagPagesBudget.perSecond == 1 && config.tagPagesBudget.burst == 4)
        #expect(config.searchBudget.perSecond == 0.5 && config.searchBudget.burst == 3)
        #expect(config.indieAuthBudget.perMinute == 6 && config.indieAuthBudget.burst == 5)
        #expect(config.indieAuthBudget.tokenPerMinute == 15 && config.indieAuthBudget.tokenBurst == 6)
        #expect(config.blogSettingsRate == 0.05 && config.blogSettingsBurst == 2)
        let sender = config.webmentionSenderSettings
        #expect(sender.firstRetry == 30 && sender.maxRetry == 3600 && sender.maxAttempts == 3)
        #expect(sender.retryDelay(afterAttempt: 2) == 60)
        let verifier = config.webmentionVerifierSettings
        #expect(verifier.firstRetry == 10 && verifier.maxAttempts == 2)
    }

    @Test func fromTheEnvironment() async throws {
        let config = try await load(#"{"search_burst": 3}"#, environment: [
            "BLOGD_SEARCH_BURST": "7", "BLOGD_TAG_PAGES_RATE": "9", "BLOGD_INDIEAUTH_TOKEN_BURST": "2",
            "BLOGD_WEBMENTION_SEND_ATTEMPTS": "12", "BLOGD_WEBMENTION_VERIFY_FIRST_RETRY": "120",
            "BLOGD_BLOG_SETTINGS_BURST": "1",
        ])
        #expect(config.searchBurst == 7, "the environment over the file")
        #expect(config.tagPagesRate == 9 && config.indieauthTokenBurst == 2 && config.blogSettingsBurst == 1)
        #expect(config.webmentionSendAttempts == 12 && config.webmentionVerifyFirstRetry == 120)
    }

    /// Zero, negative, huge and not-a-number values are refused with the
    /// key's name, and nothing starts.
    @Test func outOfRangeValuesAreRefused() async throws {
        let refused: [(String, String)] = [
            (#"{"tag_pages_rate": 0}"#, "tag_pages_rate"),
            (#"{"tag_pages_burst": 0.5}"#, "tag_pages_burst"),
            (#"{"search_rate": -1}"#, "search_rate"),
            (#"{"search_burst": 1e9}"#, "search_burst"),
            (#"{"indieauth_authorization_rate": 0}"#, "indieauth_authorization_rate"),
            (#"{"indieauth_token_burst": 0}"#, "indieauth_token_burst"),
            (#"{"blog_settings_rate": 100}"#, "blog_settings_rate"),
            (#"{"webmention_send_first_retry": 0}"#, "webmention_send_first_retry"),
            (#"{"webmention_send_max_retry": 1e12}"#, "webmention_send_max_retry"),
            (#"{"webmention_send_first_retry": 600, "webmention_send_max_retry": 60}"#, "webmention_send_max_retry"),
            (#"{"webmention_send_attempts": 0}"#, "webmention_send_attempts"),
            (#"{"webmention_verify_first_retry": -60}"#, "webmention_verify_first_retry"),
            (#"{"webmention_verify_attempts": 9}"#, "webmention_verify_attempts"),
        ]
        for (json, key) in refused {
            #expect(try await refusedKey(json) == key, "\(json)")
        }
        #expect(try await refusedKey(environment: ["BLOGD_SEARCH_RATE": "fast"]) == "search_rate")
        #expect(try await refusedKey(environment: ["BLOGD_WEBMENTION_VERIFY_ATTEMPTS": "-1"]) == "webmention_verify_attempts")
        #expect(try await refusedKey(environment: ["BLOGD_WEBMENTION_SEND_ATTEMPTS": "2.5"]) == "webmention_send_attempts")
    }
}
