import BlogCore
import Testing
@testable import blogd

/// The reload's log names each changed setting as the configuration file
/// spells it: every setting maps to a key blogd reads.
struct ReloadKeyTests {
    @Test func everySettingIsNamedAsItsConfigKey() {
        let settings = Mirror(reflecting: BlogConfig()).children.compactMap(\.label)
        // Sections and what the file spells differently on purpose.
        let sections: Set = ["scrypt"]
        let named = Set(ConfigKeys.names).union(["registration"])
        for setting in settings where !sections.contains(setting) {
            let key = Serve.fileKey(setting)
            #expect(named.contains(key) || key == "registration_open" || key == "login_failures_allowed",
                    "\(setting) is logged as \(key), no config key")
        }
        #expect(Serve.fileKey("httpRedirectHTTPS") == "http_redirect_https")
        #expect(Serve.fileKey("baseURL") == "base_url")
        #expect(Serve.fileKey("maxConnectionsPerAddress") == "max_connections_per_address")
    }
}
