/// Our own ActivityPub URLs under the base URL (`BASE`, ending in `/`),
/// read back from what activities name: actors `BASE/ap/NAME`, post
/// objects `BASE/ap/NAME/posts/ID`, post pages `BASE/NAME/ID.html`; and
/// the inbox paths on the page server, `/ap/NAME/inbox` and `/ap/inbox`.
struct InboxAddresses: Sendable {
    let base: String

    init(base: String) {
        self.base = base.hasSuffix("/") ? base : base + "/"
    }

    static let sharedInboxPath = "/ap/inbox"

    /// The blog named by an inbox path: `.some(nil)` for the shared inbox,
    /// `.some(NAME)` for a blog's own, nil for any other path.
    static func inbox(ofPath path: String) -> String?? {
        if path == sharedInboxPath { return .some(nil) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "ap", parts[3] == "inbox", isName(parts[2]) else { return nil }
        return .some(String(parts[2]))
    }

    /// NAME when `id` is our actor `BASE/ap/NAME`.
    func actorName(_ id: String) -> String? {
        guard let rest = relative(id), rest.hasPrefix("ap/") else { return nil }
        let name = rest.dropFirst(3)
        return Self.isName(name) ? String(name) : nil
    }

    /// NAME and post id when `id` is one of our posts, as its object or its page.
    func post(_ id: String) -> (name: String, postID: Int64)? {
        guard let rest = relative(id) else { return nil }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 4, parts[0] == "ap", parts[2] == "posts", Self.isName(parts[1]), let postID = Self.number(parts[3]) {
            return (String(parts[1]), postID)
        }
        if parts.count == 2, Self.isName(parts[0]), parts[1].hasSuffix(".html"),
           let postID = Self.number(parts[1].dropLast(5)) {
            return (String(parts[0]), postID)
        }
        return nil
    }

    /// What follows `BASE`, the fragment dropped; nil when not under it.
    private func relative(_ id: String) -> Substring? {
        let bare = id.prefix { $0 != "#" && $0 != "?" }
        guard bare.hasPrefix(base) else { return nil }
        return bare.dropFirst(base.count)
    }

    private static func isName(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 64 && !text.contains("/") && text != "." && text != ".."
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let value = Int64(text), value > 0
        else { return nil }
        return value
    }
}
