import BlogCore
import Foundation

/// What an app's client_id URL says about it (IndieAuth 2022, section
/// 4.2): a JSON client metadata document (`client_id`, which must be the
/// one asked for, `client_name`, `client_uri`, `redirect_uris`), or an
/// HTML page's first `h-app` / `h-x-app` (`p-name`, `u-url`) with its
/// `<link rel="redirect_uri">` elements and `Link: <…>; rel="redirect_uri"`
/// headers. Logos are not read: the authorization page loads nothing from
/// the app's site.
///
/// Everything here comes from a stranger: the name is plain text, cut to
/// `maxNameCharacters` (the page escapes it); only http(s) URLs are kept,
/// at most `maxRedirectURIs` of them, each a valid `RedirectURI`.
enum ClientPage {
    static let maxNameCharacters = 80
    static let maxRedirectURIs = 20

    /// The client's info from `answer` (a 2xx answer to its client_id);
    /// nil when it says nothing usable (the page falls back to the host).
    static func read(_ answer: HTTPAnswer, for clientID: ClientID) -> ClientInfo? {
        guard (200..<300).contains(answer.status) else { return nil }
        let type = answer.header("content-type")?.lowercased() ?? ""
        let firstByte = answer.body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if type.contains("json") || (!type.contains("html") && firstByte == UInt8(ascii: "{")) {
            return fromMetadata(answer.body, for: clientID)
        }
        guard type.isEmpty || type.contains("html") else { return nil }
        return fromHTML(answer, for: clientID)
    }

    /// A client metadata document: nil unless its `client_id` is the one
    /// asked for (another app's document proves nothing about this one).
    static func fromMetadata(_ body: [UInt8], for clientID: ClientID) -> ClientInfo? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              object["client_id"] as? String == clientID.text else { return nil }
        let uris = (object["redirect_uris"] as? [Any] ?? []).compactMap { $0 as? String }
        return ClientInfo(name: (object["client_name"] as? String).flatMap(shownName) ?? clientID.host,
                          url: (object["client_uri"] as? String).flatMap(webURL),
                          redirectURIs: checkedRedirectURIs(uris))
    }

    /// An HTML page: the first h-app's name and URL, and the published
    /// redirect URIs (header and page), resolved against the URL that
    /// answered.
    static func fromHTML(_ answer: HTTPAnswer, for clientID: ClientID) -> ClientInfo? {
        let base = URL(string: answer.url)
        func resolve(_ href: String) -> String? {
            let trimmed = href.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { return nil }
            return URL(string: trimmed, relativeTo: base)?.absoluteURL.absoluteString
        }
        var uris = linkHeaderRedirectURIs(answer.header("link") ?? "").compactMap(resolve)
        var name: String?
        var url: String?
        var sawApp = false
        let tree = HTMLTree(String(decoding: answer.body, as: UTF8.self))
        tree.elements { element in
            if element.name == "link", Self.relHolds(element.attributes["rel"] ?? "", "redirect_uri"),
               let href = element.attributes["href"], let resolved = resolve(href) {
                uris.append(resolved)
            }
            let classes = element.classes
            guard !sawApp, classes.contains("h-app") || classes.contains("h-x-app") else { return true }
            sawApp = true
            element.descendants { child in
                let inner = child.classes
                if name == nil, inner.contains("p-name") { name = child.text }
                if url == nil, inner.contains("u-url") {
                    url = resolve(child.attributes["href"] ?? child.attributes["src"] ?? child.text)
                }
                return !inner.contains { $0.hasPrefix("h-") }
            }
            // An h-app with no p-name is named by its text (mf2's implied name).
            if name == nil { name = element.text }
            return true
        }
        guard sawApp || !uris.isEmpty else { return nil }
        return ClientInfo(name: name.flatMap(shownName) ?? clientID.host, url: url.flatMap(webURL),
                          redirectURIs: checkedRedirectURIs(uris))
    }

    /// The targets of the links in a `Link` header whose `rel` holds
    /// `redirect_uri` (RFC 8288; commas inside `<…>` or quotes are kept).
    static func linkHeaderRedirectURIs(_ header: String) -> [String] {
        var found: [String] = []
        var links: [String] = []
        var current = ""
        var inAngle = false
        var inQuote = false
        for character in header {
            switch character {
            case "<" where !inQuote: inAngle = true
            case ">" where !inQuote: inAngle = false
            case "\"" where !inAngle: inQuote.toggle()
            case "," where !inAngle && !inQuote:
                links.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        links.append(current)
        for link in links {
            guard let open = link.firstIndex(of: "<"), let close = link[open...].firstIndex(of: ">") else { continue }
            let target = String(link[link.index(after: open)..<close])
            for parameter in link[link.index(after: close)...].split(separator: ";") {
                let parts = parameter.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if relHolds(value, "redirect_uri") { found.append(target) }
            }
        }
        return found
    }

    static func relHolds(_ rel: String, _ word: String) -> Bool {
        rel.lowercased().split(whereSeparator: \.isWhitespace).contains { $0 == word }
    }

    /// A name as shown: one line, control characters dropped and format
    /// ones too (bidirectional overrides would make it read as another
    /// name), cut to `maxNameCharacters`; nil when nothing is left.
    static func shownName(_ text: String) -> String? {
        let line = String(String.UnicodeScalarView(text.unicodeScalars.compactMap { scalar -> Unicode.Scalar? in
            switch scalar.properties.generalCategory {
            case .control: " "
            case .format: nil
            default: scalar
            }
        }))
        let collapsed = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !collapsed.isEmpty else { return nil }
        return collapsed.count > maxNameCharacters ? String(collapsed.prefix(maxNameCharacters - 1)) + "…" : collapsed
    }

    private static func webURL(_ text: String) -> String? {
        RedirectURI(text).map(\.text)
    }

    private static func checkedRedirectURIs(_ uris: [String]) -> [String] {
        var seen: [String] = []
        for uri in uris where seen.count < maxRedirectURIs {
            if let checked = RedirectURI(uri), !seen.contains(checked.text) { seen.append(checked.text) }
        }
        return seen
    }
}
