/// Which representation a request's `Accept` asks for: ActivityPub's JSON
/// or the HTML page. A media range's weight (`q`) is that of its most
/// specific match (`type/subtype` over `type/*` over `*/*`, RFC 9110
/// 12.5.1), parameters other than `q` are ignored (`application/ld+json;
/// profile="https://www.w3.org/ns/activitystreams"` is JSON-LD whatever
/// its profile), and JSON wins a tie.
///
///     ActivityAccept.wantsJSON("application/activity+json", page: true)          // true
///     ActivityAccept.wantsJSON("text/html,application/xhtml+xml,*/*;q=0.8")      // false
public enum ActivityAccept {
    /// The JSON types of an ActivityPub document.
    static let activityTypes = ["application/activity+json", "application/ld+json"]

    /// Whether `accept` asks for the JSON rather than the page. `page`:
    /// the URL is a page's (`alice.html`), whose JSON only a client that
    /// names an ActivityPub type gets (not `application/json`, not
    /// `*/*`); otherwise it is an `ap/` URL, whose JSON any client gets
    /// that does not prefer HTML. No `Accept` at all: the page (a browser
    /// of old, or a link checker).
    public static func wantsJSON(_ accept: String?, page: Bool = false) -> Bool {
        guard let accept, !accept.isEmpty else { return false }
        // Most requests for a page are browsers': no parse for them.
        if page, !mentionsJSON(accept) { return false }
        let ranges = parse(accept)
        let types = page ? activityTypes : activityTypes + ["application/json"]
        let json = types.map { weight(of: $0, in: ranges, wildcards: !page) }.max() ?? 0
        return json > 0 && json >= weight(of: "text/html", in: ranges, wildcards: true)
    }

    /// Whether `json` is in `accept`, in any case: one pass over its bytes.
    static func mentionsJSON(_ accept: String) -> Bool {
        let word = Array("json".utf8)
        var matched = 0
        for byte in accept.utf8 {
            let lower = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
            matched = lower == word[matched] ? matched + 1 : (lower == word[0] ? 1 : 0)
            if matched == word.count { return true }
        }
        return false
    }

    /// One media range: `type/subtype` lowercased and its weight.
    struct Range: Equatable {
        var type: Substring
        var subtype: Substring
        var q: Double
    }

    /// The ranges of an `Accept` field; a malformed one is skipped.
    static func parse(_ accept: String) -> [Range] {
        accept.lowercased().split(separator: ",").prefix(64).compactMap { item in
            let parts = item.split(separator: ";")
            guard let media = parts.first?.trimmingSpaces, let slash = media.firstIndex(of: "/") else { return nil }
            let type = media[..<slash], subtype = media[media.index(after: slash)...]
            guard !type.isEmpty, !subtype.isEmpty else { return nil }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces == "q" else { continue }
                q = Double(pair[1].trimmingSpaces).map { min(1, max(0, $0)) } ?? 0
            }
            return Range(type: type, subtype: subtype, q: q)
        }
    }

    /// The weight `ranges` give `mediaType` (`type/subtype`): that of the
    /// most specific range matching it, 0 for none.
    static func weight(of mediaType: String, in ranges: [Range], wildcards: Bool) -> Double {
        let parts = mediaType.split(separator: "/")
        var best: (specificity: Int, q: Double)?
        for range in ranges {
            let specificity: Int
            if range.type == parts[0] && range.subtype == parts[1] {
                specificity = 2
            } else if wildcards && range.type == parts[0] && range.subtype == "*" {
                specificity = 1
            } else if wildcards && range.type == "*" && range.subtype == "*" {
                specificity = 0
            } else {
                continue
            }
            if best == nil || specificity > best!.specificity || (specificity == best!.specificity && range.q > best!.q) {
                best = (specificity, range.q)
            }
        }
        return best?.q ?? 0
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
