import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The key deliveries are grouped by for their per-host limits (sends at
/// once, the window's share; the backoff is per server, `HostsDown`):
/// who runs the server, as well as a name shows it. A wildcard DNS name
/// makes any number of host names for one server (`u1.evil.example`,
/// `u2.evil.example`, …) and a port may be written or not
/// (`evil.example:443`); keyed by the exact authority, each would get
/// limits of its own.
extension ActorHost {
    /// The delivery host key of `url`'s host (see `deliveryKey(host:)`).
    public static func deliveryKey(of url: String) -> String {
        deliveryKey(host: host(of: url))
    }

    /// The delivery host key of a host name or IP literal, without a port:
    ///
    /// - a name: its registrable domain, lower case, with no trailing dot:
    ///   the last two labels (`u1.evil.example` → `evil.example`), three
    ///   when the second-to-last is a second level that a country's
    ///   registry sells under (`co`, `com`, `org`, `ac`, … under a
    ///   two-letter top-level domain: `a.bbc.co.uk` → `bbc.co.uk`), or
    ///   when the last two are a hosting platform's shared suffix whose
    ///   subdomains belong to different people (`alice.github.io`);
    /// - an IPv4 address (in any form the resolver takes: `127.1`,
    ///   `2130706433`): the address, dotted;
    /// - an IPv6 address: its /64, the block one machine or site gets
    ///   (`2001:db8:0:1::/64`), so one site's many addresses are one key.
    ///
    /// A rule of this size, not the Public Suffix List: it errs towards
    /// one key for names that are apart (`example.tokyo.jp` and
    /// `other.tokyo.jp` share `tokyo.jp`), which costs them speed, never
    /// towards keys of their own for one owner's names (`co` and the
    /// like count only under a country's domain).
    public static func deliveryKey(host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        if let address = ipv4Key(name) { return address }
        if name.contains(":") { return ipv6Key(name) ?? name }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count > 2 else { return name }
        let top = labels[labels.count - 1], second = labels[labels.count - 2]
        let lastTwo = "\(second).\(top)"
        let threeLabels = (top.count == 2 && countrySecondLevels.contains(String(second)))
            || sharedSuffixes.contains(lastTwo)
        return labels.suffix(threeLabels ? 3 : 2).joined(separator: ".")
    }

    /// Second levels that registries of country domains sell names under
    /// (`bbc.co.uk`, `abc.net.au`, `example.com.br`, `example.ne.jp`).
    static let countrySecondLevels: Set<String> = [
        "ac", "co", "com", "ed", "edu", "go", "gob", "gouv", "gov", "govt", "gr", "lg", "ltd", "me", "mil",
        "ne", "net", "nic", "nom", "or", "org", "plc", "sch",
    ]

    /// Hosting platforms' shared suffixes whose subdomains are different
    /// people's sites (each a registrable domain of its own in the Public
    /// Suffix List): keyed by three labels, so that one site's trouble
    /// does not hold up its neighbours'.
    static let sharedSuffixes: Set<String> = [
        "github.io", "gitlab.io", "herokuapp.com", "fly.dev", "onrender.com", "netlify.app", "vercel.app",
        "pages.dev", "workers.dev", "ngrok.io", "ngrok-free.app", "duckdns.org", "glitch.me", "repl.co",
        "azurewebsites.net", "appspot.com", "web.app", "firebaseapp.com", "ddns.net", "blogspot.com",
    ]

    /// `name` as a dotted IPv4 address when the resolver would take it
    /// for one (`inet_aton` reads `127.1` and `0x7f000001` too).
    private static func ipv4Key(_ name: String) -> String? {
        guard !name.isEmpty, name.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" }) else { return nil }
        var address = in_addr()
        guard inet_aton(name, &address) != 0 else { return nil }
        let value = UInt32(bigEndian: address.s_addr)
        return "\(value >> 24).\((value >> 16) & 0xff).\((value >> 8) & 0xff).\(value & 0xff)"
    }

    /// The /64 of an IPv6 address, in hex groups; nil when it is not one.
    private static func ipv6Key(_ name: String) -> String? {
        var address = in6_addr()
        let plain = name.split(separator: "%", maxSplits: 1).first.map(String.init) ?? name
        guard inet_pton(AF_INET6, plain, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        // An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return "\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])"
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
