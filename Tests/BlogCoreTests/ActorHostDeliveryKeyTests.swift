import Testing
import BlogModel

/// The key deliveries are grouped by for their per-host limits: one per
/// owner of a name as far as a name shows it, one per IP address.
@Suite("ActorHost delivery key")
struct ActorHostDeliveryKeyTests {
    private func key(_ url: String) -> String { ActorHost.deliveryKey(of: url) }

    @Test func wildcardSubdomainsShareTheRegistrableDomain() {
        let keys = Set((1...50).map { key("https://u\($0).evil.example/users/x/inbox") })
        #expect(keys == ["evil.example"])
        #expect(key("https://a.b.c.evil.example/inbox") == "evil.example")
        #expect(key("https://evil.example/inbox") == "evil.example")
        #expect(key("https://example/inbox") == "example", "a single label is its own key")
    }

    @Test func thePortAndTheCaseAndATrailingDotDoNotCount() {
        #expect(key("https://evil.example:443/inbox") == "evil.example")
        #expect(key("https://evil.example:8443/inbox") == "evil.example")
        #expect(key("https://Social.EVIL.example./inbox") == "evil.example")
        #expect(ActorHost.deliveryKey(host: "evil.example..") == "evil.example")
    }

    @Test func aCountrySecondLevelKeepsThreeLabels() {
        #expect(key("https://a.b.bbc.co.uk/inbox") == "bbc.co.uk")
        #expect(key("https://bbc.co.uk/inbox") == "bbc.co.uk")
        #expect(key("https://social.abc.net.au/inbox") == "abc.net.au")
        #expect(key("https://m.example.com.br/inbox") == "example.com.br")
        #expect(key("https://m.example.ne.jp/inbox") == "example.ne.jp")
        #expect(key("https://co.uk/inbox") == "co.uk")
        #expect(key("https://m.example.uk/inbox") == "example.uk", "no second level: two labels")
        // Only under a country's two-letter domain: co.example is one owner's.
        #expect(key("https://u1.co.example/inbox") == "co.example")
        #expect(key("https://u1.com.example/inbox") == key("https://u2.com.example/inbox"))
    }

    @Test func aPlatformsSharedSuffixKeepsEachSiteApart() {
        #expect(key("https://alice.github.io/inbox") == "alice.github.io")
        #expect(key("https://www.alice.github.io/inbox") == "alice.github.io")
        #expect(key("https://bob.fly.dev/inbox") != key("https://carol.fly.dev/inbox"))
    }

    @Test func eachIPv4AddressIsItsOwnKey() {
        #expect(key("http://127.1.0.1:40001/inbox") == "127.1.0.1")
        #expect(key("http://127.1.0.2:40001/inbox") == "127.1.0.2")
        #expect(key("http://127.1.0.1:40002/inbox") == "127.1.0.1", "the farm's hosts: one key an address")
        #expect(key("http://127.1/inbox") == "127.0.0.1", "a short form is the address it names")
        #expect(key("http://2130706433/inbox") == "127.0.0.1")
        #expect(key("http://0x7f000001/inbox") == "127.0.0.1")
        #expect(key("http://192.0.2.10/inbox") != key("http://192.0.2.11/inbox"))
    }

    @Test func anIPv6AddressIsKeyedByItsSlash64() {
        #expect(key("http://[2001:db8:0:1::5]:8080/inbox") == "2001:db8:0:1::/64")
        #expect(key("http://[2001:DB8:0:1:ffff::9]/inbox") == "2001:db8:0:1::/64", "one /64, one key")
        #expect(key("http://[2001:db8:0:2::5]/inbox") == "2001:db8:0:2::/64")
        #expect(key("http://[::1]:9/inbox") == "0:0:0:0::/64")
        #expect(key("http://[::ffff:192.0.2.7]/inbox") == "192.0.2.7", "an IPv4-mapped address is that address")
    }

    @Test func nothingToKeyIsEmpty() {
        #expect(key("not a url") == "")
        #expect(key("https:///inbox") == "")
    }
}
