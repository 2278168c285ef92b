import BlogModel
import Foundation

/// What a Webmention's source says about its target: whether it links to
/// it at all, and from its first `h-entry` (microformats2) the author
/// (`p-author h-card`: name, URL, photo), the name, the content as text,
/// and the kind: `u-like-of`, `u-repost-of` or `u-in-reply-to` naming the
/// target make it a like, repost or reply; anything else a mention.
///
/// A small, tolerant reader of the parts of mf2 that this needs, not a
/// full parser; every value is text (`e-content` is read as its text,
/// never kept as markup).
public struct SourceReader: Sendable {
    let source: URL
    let target: String

    /// A reader of the page at `source` (its final URL, after redirects:
    /// relative links resolve against it) about `target`.
    public init(source: URL, target: String) {
        self.source = source
        self.target = target
    }

    /// Nil when the source does not link to the target.
    public func read(body: String, contentType: String) -> WebmentionContent? {
        guard contentType.lowercased().contains("html") else {
            // Plain text and other types: the target's URL anywhere in it.
            return body.contains(target) ? WebmentionContent(kind: .mention) : nil
        }
        let tree = HTMLTree(body)
        guard linksToTarget(tree) else { return nil }
        var entry: HTMLTree.Element?
        tree.elements { element in
            if entry == nil, element.classes.contains("h-entry") { entry = element }
            return entry == nil
        }
        guard let entry else { return WebmentionContent(kind: .mention) }
        return Self.bounded(content(of: entry))
    }

    /// An `a`, `area` or `link` `href`, or an `img`, `audio`, `video` or
    /// `source` `src`, that resolves to the target (fragment aside).
    func linksToTarget(_ tree: HTMLTree) -> Bool {
        let wanted = Self.normalized(target)
        var found = false
        tree.elements { element in
            let link: String? = switch element.name {
            case "a", "area", "link": element.attributes["href"]
            case "img", "audio", "video", "source": element.attributes["src"]
            default: nil
            }
            if let link, let resolved = resolve(link), Self.normalized(resolved) == wanted { found = true }
            return !found
        }
        return found
    }

    private func content(of entry: HTMLTree.Element) -> WebmentionContent {
        var result = WebmentionContent(kind: .mention)
        var kinds: Set<String> = []
        var name: String?
        var text: String?
        visitProperties(of: entry) { element, properties in
            for property in properties {
                switch property {
                case "p-author":
                    if result.authorName.isEmpty && result.authorURL.isEmpty { readAuthor(element, into: &result) }
                case "p-name" where name == nil:
                    name = element.text
                case "e-content", "p-content":
                    if text == nil { text = element.text }
                case "u-in-reply-to", "u-like-of", "u-repost-of":
                    if linkValues(element).contains(where: { Self.normalized($0) == Self.normalized(target) }) {
                        kinds.insert(property)
                    }
                default: break
                }
            }
        }
        result.kind = kinds.contains("u-like-of") ? .like
            : kinds.contains("u-repost-of") ? .repost
            : kinds.contains("u-in-reply-to") ? .reply : .mention
        result.text = text ?? ""
        // A name that is only the start of the content is mf2's implied
        // name, not a title.
        if let name, !name.isEmpty, !result.text.hasPrefix(name) { result.title = name }
        return result
    }

    /// Calls `visit` with each element below `root` that has property
    /// classes (`p-`, `u-`, `e-`, `dt-`), not looking inside nested
    /// microformats (their properties are theirs).
    private func visitProperties(of root: HTMLTree.Element, _ visit: (HTMLTree.Element, [String]) -> Void) {
        root.descendants { element in
            let classes = element.classes.map(String.init)
            let properties = classes.filter { $0.hasPrefix("p-") || $0.hasPrefix("u-") || $0.hasPrefix("e-") || $0.hasPrefix("dt-") }
            if !properties.isEmpty { visit(element, properties) }
            return !classes.contains { $0.hasPrefix("h-") }
        }
    }

    private func readAuthor(_ element: HTMLTree.Element, into result: inout WebmentionContent) {
        guard element.classes.contains("h-card") else {
            result.authorName = element.text
            if element.name == "a", let href = element.attributes["href"], let url = resolve(href) { result.authorURL = url }
            return
        }
        var name: String?
        var url: String?
        var photo: String?
        if element.name == "a", let href = element.attributes["href"] { url = resolve(href) }
        element.descendants { child in
            let classes = child.classes
            if name == nil, classes.contains("p-name") { name = child.text }
            if url == nil, classes.contains("u-url") { url = linkValues(child).first }
            if photo == nil, classes.contains("u-photo") { photo = linkValues(child).first }
            return !classes.contains { $0.hasPrefix("h-") }
        }
        result.authorName = name ?? element.text
        result.authorURL = url ?? ""
        result.authorPhoto = photo ?? ""
    }

    /// A `u-` property's values: its link, or its nested h-cite's `u-url`,
    /// or its text.
    private func linkValues(_ element: HTMLTree.Element) -> [String] {
        let own: String? = switch element.name {
        case "a", "area", "link": element.attributes["href"]
        case "img", "audio", "video", "source": element.attributes["src"]
        case "object": element.attributes["data"]
        default: nil
        }
        if let own, let resolved = resolve(own) { return [resolved] }
        var found: [String] = []
        element.descendants { child in
            if child.classes.contains("u-url"), let value = linkValues(child).first { found.append(value) }
            return true
        }
        if found.isEmpty, let text = resolve(element.text) { found.append(text) }
        return found
    }

    private func resolve(_ link: String) -> String? {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return URL(string: trimmed, relativeTo: source)?.absoluteURL.absoluteString
    }

    static func normalized(_ url: String) -> String {
        String(url.prefix { $0 != "#" })
    }

    /// Author URLs and photos only as http(s) URLs; everything cut to its limits.
    private static func bounded(_ content: WebmentionContent) -> WebmentionContent {
        var content = content.bounded
        if !isWebURL(content.authorURL) { content.authorURL = "" }
        if !isWebURL(content.authorPhoto) { content.authorPhoto = "" }
        return content
    }

    private static func isWebURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}
