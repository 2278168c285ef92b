import BlogApp
import BlogCore
import Configuration

/// The per-address budgets of the pages read on demand (tag pages,
/// search), of IndieAuth and blog settings, and the Webmention sender's
/// and verifier's retry timings: their keys, and how they are read.
///
/// Each range refuses what would break a door rather than tune it: a rate
/// of 0 would shut an address out for good once its burst is spent, a
/// retry after 0 seconds would hammer a failing receiver, and a huge one
/// would push a due time past any date a database keeps.
extension ConfigKeys {
    static let readingAndRetry: [Key] = [
        Key(name: "tag_pages_rate", summary: "tag pages and feeds an address may read a second") { "\($0.tagPagesRate)" },
        Key(name: "tag_pages_burst", summary: "tag pages an address may read at once") { "\($0.tagPagesBurst)" },
        Key(name: "search_rate", summary: "searches an address may make a second") { "\($0.searchRate)" },
        Key(name: "search_burst", summary: "searches an address may make at once") { "\($0.searchBurst)" },
        Key(name: "indieauth_authorization_rate", summary: "IndieAuth authorization attempts an address may make a second") {
            "\($0.indieauthAuthorizationRate)"
        },
        Key(name: "indieauth_authorization_burst", summary: "IndieAuth authorization attempts at once") {
            "\($0.indieauthAuthorizationBurst)"
        },
        Key(name: "indieauth_token_rate", summary: "IndieAuth token requests an address may make a second") {
            "\($0.indieauthTokenRate)"
        },
        Key(name: "indieauth_token_burst", summary: "IndieAuth token requests at once") { "\($0.indieauthTokenBurst)" },
        Key(name: "blog_settings_rate", summary: "blog settings changes an address may make a second") {
            "\($0.blogSettingsRate)"
        },
        Key(name: "blog_settings_burst", summary: "blog settings changes an address may make at once") {
            "\($0.blogSettingsBurst)"
        },
        Key(name: "webmention_send_first_retry", summary: "seconds before a failed send is tried again (doubled after)") {
            "\($0.webmentionSendFirstRetry)"
        },
        Key(name: "webmention_send_max_retry", summary: "seconds between two sends' tries at most") {
            "\($0.webmentionSendMaxRetry)"
        },
        Key(name: "webmention_send_attempts", summary: "tries of a Webmention send before it is given up") {
            "\($0.webmentionSendAttempts)"
        },
        Key(name: "webmention_verify_first_retry", summary: "seconds before a failed verification is tried again (x4 after)") {
            "\($0.webmentionVerifyFirstRetry)"
        },
        Key(name: "webmention_verify_attempts", summary: "tries of a verification before the Webmention is removed") {
            "\($0.webmentionVerifyAttempts)"
        },
    ]
}

extension ConfigLoader {
    /// A budget's rate (a second) and burst: at least one request a
    /// hundred seconds, at least one at once.
    static let rates: ClosedRange<Double> = 0.01...1000
    static let bursts: ClosedRange<Double> = 1...100_000

    static func readReadingAndRetry(_ reader: ConfigReader, into config: inout BlogConfig) throws {
        config.tagPagesRate = try double(reader, "tag_pages_rate", config.tagPagesRate, rates)
        config.tagPagesBurst = try double(reader, "tag_pages_burst", config.tagPagesBurst, bursts)
        config.searchRate = try double(reader, "search_rate", config.searchRate, rates)
        config.searchBurst = try double(reader, "search_burst", config.searchBurst, bursts)
        config.indieauthAuthorizationRate = try double(reader, "indieauth_authorization_rate",
                                                       config.indieauthAuthorizationRate, rates)
        config.indieauthAuthorizationBurst = try double(reader, "indieauth_authorization_burst",
                                                        config.indieauthAuthorizationBurst, bursts)
        config.indieauthTokenRate = try double(reader, "indieauth_token_rate", config.indieauthTokenRate, rates)
        config.indieauthTokenBurst = try double(reader, "indieauth_token_burst", config.indieauthTokenBurst, bursts)
        // Each change rewrites every page of a blog: ten a second is
        // already more than any person makes.
        config.blogSettingsRate = try double(reader, "blog_settings_rate", config.blogSettingsRate, 0.001...10)
        config.blogSettingsBurst = try double(reader, "blog_settings_burst", config.blogSettingsBurst, 1...1000)
        // A week between two sends at most; 50 tries at most.
        config.webmentionSendFirstRetry = try double(reader, "webmention_send_first_retry",
                                                     config.webmentionSendFirstRetry, 1...86_400)
        config.webmentionSendMaxRetry = try double(reader, "webmention_send_max_retry",
                                                   config.webmentionSendMaxRetry, 1...(7 * 86_400))
        guard config.webmentionSendMaxRetry >= config.webmentionSendFirstRetry else {
            throw ConfigLoadError.invalidValue(
                key: "webmention_send_max_retry",
                reason: "\(config.webmentionSendMaxRetry) is shorter than webmention_send_first_retry (\(config.webmentionSendFirstRetry))")
        }
        config.webmentionSendAttempts = try int(reader, "webmention_send_attempts", config.webmentionSendAttempts, 1...50)
        // The verifier's waits grow fourfold without a ceiling: an hour's
        // first wait and 8 tries end within a year.
        config.webmentionVerifyFirstRetry = try double(reader, "webmention_verify_first_retry",
                                                       config.webmentionVerifyFirstRetry, 1...3600)
        config.webmentionVerifyAttempts = try int(reader, "webmention_verify_attempts", config.webmentionVerifyAttempts, 1...8)
    }
}

extension BlogConfig {
    /// The tag pages' budget per address.
    var tagPagesBudget: ReadingBudget { ReadingBudget(perSecond: tagPagesRate, burst: tagPagesBurst) }

    /// Search's budget per address.
    var searchBudget: ReadingBudget { ReadingBudget(perSecond: searchRate, burst: searchBurst) }

    /// IndieAuth's two budgets per address.
    var indieAuthBudget: IndieAuthBudget {
        IndieAuthBudget(perMinute: indieauthAuthorizationRate * 60, burst: indieauthAuthorizationBurst,
                        tokenPerMinute: indieauthTokenRate * 60, tokenBurst: indieauthTokenBurst)
    }

    /// The budget of blog settings changes per address.
    var blogSettingsBudget: BlogSettingsBudget {
        BlogSettingsBudget(perMinute: blogSettingsRate * 60, burst: blogSettingsBurst)
    }

    /// The Webmention sender's retries.
    var webmentionSenderSettings: WebmentionSender.Settings {
        var sender = WebmentionSender.Settings()
        sender.firstRetry = webmentionSendFirstRetry
        sender.maxRetry = webmentionSendMaxRetry
        sender.maxAttempts = webmentionSendAttempts
        return sender
    }

    /// The Webmention verifier's retries, and half the outgoing fetches.
    var webmentionVerifierSettings: WebmentionVerifier.Settings {
        WebmentionVerifier.Settings(concurrency: max(1, outgoingConcurrency / 2), maxAttempts: webmentionVerifyAttempts,
                                    firstRetry: webmentionVerifyFirstRetry)
    }
}
