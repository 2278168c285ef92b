import Foundation

/// Reads a Micropub POST body, form-encoded or JSON, into an action and
/// the access token it carried (if any). Multipart bodies (a post with
/// a file) are read by `MultipartForm` first and come here as form fields.
///
///     let (action, token) = try MicropubParser.parse(body: bytes, contentType: "application/json")
public enum MicropubParser {
    /// Arrays and objects a JSON body may nest: far more than any mf2
    /// post needs, far less than would exhaust a parser's stack.
    static let maxDepth = 16

    static func parse(body: [UInt8], contentType: String?) throws(MicropubError) -> (MicropubAction, token: String?) {
        switch mediaType(contentType) {
        case "application/json":
            return (try json(body), nil)
        case "application/x-www-form-urlencoded", nil:
            let form = FormData(bytes: body)
            return (try self.form(form), form["access_token"])
        default:
            throw .invalidRequest("Send application/x-www-form-urlencoded, multipart/form-data or application/json.")
        }
    }

    /// `parse(body:contentType:)` for the fuzz target (Sources/BlogFuzz),
    /// which sees only public API: every text of the action read, in a
    /// fixed order, or nil when the body is refused. Nothing else calls it.
    public static func texts(ofBody body: [UInt8], contentType: String?) -> [String]? {
        guard let parsed = try? parse(body: body, contentType: contentType) else { return nil }
        let (action, token) = parsed
        func photos(_ list: [MicropubPhoto]) -> [String] { list.flatMap { [$0.url] + ($0.alt.map { [$0] } ?? []) } }
        func values(_ map: [String: [String]]) -> [String] { map.sorted { $0.key < $1.key }.flatMap { [$0.key] + $0.value } }
        var texts = token.map { [$0] } ?? []
        switch action {
        case .create(let entry):
            texts += [entry.name, entry.content, entry.contentHTML, entry.location?.latitude, entry.location?.longitude]
                .compactMap { $0 } + photos(entry.photos) + entry.photoAlts + entry.categories
        case .update(let url, let update):
            texts += [url] + values(update.replace) + values(update.add) + update.removeProperties + values(update.removeValues)
                + [update.contentHTML, update.location?.latitude, update.location?.longitude].compactMap { $0 }
                + photos(update.replacePhotos ?? []) + photos(update.addPhotos)
        case .delete(let url), .undelete(let url):
            texts.append(url)
        }
        return texts
    }

    /// Whether a body of `contentType` is JSON.
    static func isJSON(_ contentType: String?) -> Bool {
        mediaType(contentType) == "application/json"
    }

    private static func mediaType(_ contentType: String?) -> String? {
        contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    static func form(_ form: FormData) throws(MicropubError) -> MicropubAction {
        guard !form.isRefused else { throw .invalidRequest("The form is not UTF-8, or has more than \(FormData.maxFields) fields.") }
        if let action = form["action"] {
            guard let url = form["url"], !url.isEmpty else { throw .invalidRequest("An action needs the post's url.") }
            switch action {
            case "delete": return .delete(url: url)
            case "undelete": return .undelete(url: url)
            case "update": throw .invalidRequest("Send updates as JSON.")
            default: throw .invalidRequest("Unknown action \"\(action.prefix(40))\".")
            }
        }
        guard (form["h"] ?? "entry") == "entry" else { throw .invalidRequest("Only h=entry posts are made here.") }
        var entry = MicropubEntry()
        entry.name = form.all("name").first
        entry.content = form.all("content").first
        if let geo = form.all("location").first { entry.location = try geoURI(geo) }
        entry.photos = form.all("photo").map { MicropubPhoto(url: $0) }
        // Alt text has no form syntax in Micropub (3.1.1 leaves objects
        // such as photo[alt] to JSON); mp-photo-alt is the extension some
        // clients send.
        entry.photoAlts = form.all("mp-photo-alt")
        entry.categories = form.all("category") + form.all("category[]")
        return .create(entry)
    }

    static func json(_ body: [UInt8]) throws(MicropubError) -> MicropubAction {
        // UTF-8 only (RFC 8259): the depth check reads bytes, and UTF-16
        // would hide brackets from it.
        guard String(validating: body, as: UTF8.self) != nil, !body.contains(0), body.first != 0xEF else {
            throw .invalidRequest("The JSON is not UTF-8.")
        }
        guard JSONDepth.isWithin(maxDepth, body) else { throw .invalidRequest("The JSON nests too deep.") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)), let top = object as? [String: Any] else {
            throw .invalidRequest("The body is not a JSON object.")
        }
        if let action = top["action"] {
            guard let action = action as? String, let url = top["url"] as? String, !url.isEmpty else {
                throw .invalidRequest("An action needs the post's url.")
            }
            switch action {
            case "delete": return .delete(url: url)
            case "undelete": return .undelete(url: url)
            case "update": return .update(url: url, try update(top))
            default: throw .invalidRequest("Unknown action \"\(action.prefix(40))\".")
            }
        }
        guard let types = top["type"] as? [Any], types.contains(where: { $0 as? String == "h-entry" }) else {
            throw .invalidRequest("Only h-entry posts are made here.")
        }
        guard let properties = (top["properties"] ?? [String: Any]()) as? [String: Any] else {
            throw .invalidRequest("properties is not an object.")
        }
        var entry = MicropubEntry()
        entry.name = texts(properties["name"]).first
        entry.content = texts(properties["content"]).first
        entry.contentHTML = html(properties["content"])
        if let location = (properties["location"] as? [Any])?.first { entry.location = try self.location(location) }
        entry.photos = photos(properties["photo"])
        entry.categories = texts(properties["category"])
        return .create(entry)
    }

    private static func update(_ top: [String: Any]) throws(MicropubError) -> MicropubUpdate {
        var update = MicropubUpdate()
        for (key, operation) in [("replace", true), ("add", false)] {
            guard let value = top[key] else { continue }
            guard let properties = value as? [String: Any] else { throw .invalidRequest("\(key) is not an object.") }
            for (name, values) in properties {
                guard let list = values as? [Any] else { throw .invalidRequest("\(key).\(name) is not an array.") }
                if operation { update.replace[name] = texts(list) } else { update.add[name] = texts(list) }
                switch (name, operation) {
                case ("content", true): update.contentHTML = html(list)
                case ("photo", true): update.replacePhotos = photos(list)
                case ("photo", false): update.addPhotos = photos(list)
                case ("location", true):
                    guard let first = list.first, let point = try location(first) else {
                        throw .invalidRequest("replace.location is not a geo: URI or an h-geo.")
                    }
                    update.location = MicropubLocation(latitude: point.latitude, longitude: point.longitude)
                default: break
                }
            }
        }
        switch top["delete"] {
        case nil: break
        case let names as [Any]:
            update.removeProperties = names.compactMap { $0 as? String }
            guard update.removeProperties.count == names.count else { throw .invalidRequest("delete lists property names.") }
        case let properties as [String: Any]:
            for (name, values) in properties {
                guard let list = values as? [Any] else { throw .invalidRequest("delete.\(name) is not an array.") }
                update.removeValues[name] = texts(list)
            }
        default:
            throw .invalidRequest("delete is neither an array nor an object.")
        }
        return update
    }

    /// The text of each value: a string, or the `value` (else the `html`
    /// without its tags) of an object such as `{"html": "<p>Hi</p>"}`.
    static func texts(_ values: Any?) -> [String] {
        (values as? [Any] ?? []).compactMap { value in
            if let text = value as? String { return text }
            guard let object = value as? [String: Any] else { return nil }
            if let text = object["value"] as? String { return text }
            return (object["html"] as? String).map(plainText)
        }
    }

    /// The `html` of the first value, when it is an object such as
    /// `{"html": "<p>Hi</p>"}`: what `q=source` gives back.
    static func html(_ values: Any?) -> String? {
        ((values as? [Any])?.first as? [String: Any])?["html"] as? String
    }

    /// Photo URLs: strings, or `{"value": URL, "alt": TEXT}` objects.
    static func photos(_ values: Any?) -> [MicropubPhoto] {
        (values as? [Any] ?? []).compactMap { value in
            if let url = value as? String { return MicropubPhoto(url: url) }
            guard let object = value as? [String: Any], let url = object["value"] as? String else { return nil }
            return MicropubPhoto(url: url, alt: object["alt"] as? String)
        }
    }

    private static func location(_ value: Any) throws(MicropubError) -> (latitude: String, longitude: String)? {
        if let uri = value as? String { return try geoURI(uri) }
        guard let object = value as? [String: Any], let properties = object["properties"] as? [String: Any] else { return nil }
        guard let latitude = decimal(texts(properties["latitude"]).first ?? (properties["latitude"] as? [Any])?.first),
              let longitude = decimal(texts(properties["longitude"]).first ?? (properties["longitude"] as? [Any])?.first)
        else { return nil }
        return (latitude, longitude)
    }

    private static func decimal(_ value: Any?) -> String? {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return String(format: "%.7f", number.doubleValue) }
        return nil
    }

    /// `geo:LAT,LON` with optional altitude and parameters (RFC 5870).
    static func geoURI(_ text: String) throws(MicropubError) -> (latitude: String, longitude: String) {
        guard text.lowercased().hasPrefix("geo:") else { throw .invalidRequest("location is not a geo: URI.") }
        let coordinates = text.dropFirst(4).split(separator: ";", maxSplits: 1).first ?? ""
        let parts = coordinates.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { throw .invalidRequest("location is not a geo: URI.") }
        return (String(parts[0]), String(parts[1]))
    }

    /// HTML content as the plain text blogd stores (it escapes on output):
    /// paragraphs and line breaks as line breaks, the text of scripts and
    /// styles dropped, other tags removed, entities decoded.
    static func plainText(_ html: String) -> String {
        var out = ""
        var tag = ""
        var inTag = false
        var skipping: String?
        for character in html {
            if inTag {
                if character == ">" {
                    inTag = false
                    let name = tag.lowercased().split(whereSeparator: { $0 == " " || $0 == "/" || $0 == "\t" || $0 == "\n" }).first.map(String.init) ?? ""
                    let closing = tag.hasPrefix("/")
                    let bare = closing ? String(tag.dropFirst()).lowercased().split(separator: " ").first.map(String.init) ?? "" : name
                    if let skipped = skipping {
                        if closing && bare == skipped { skipping = nil }
                    } else if !closing && (name == "script" || name == "style") {
                        skipping = name
                    } else if name == "br" || (closing && blockTags.contains(bare)) {
                        if !out.hasSuffix("\n") && !out.isEmpty { out.append("\n") }
                    }
                    tag = ""
                } else {
                    tag.append(character)
                }
                continue
            }
            if character == "<" {
                inTag = true
                continue
            }
            if skipping == nil { out.append(character) }
        }
        return decodeEntities(out).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static let blockTags: Set<String> = ["p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "tr"]

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "eacute": "é", "egrave": "è",
        "agrave": "à", "ccedil": "ç", "uuml": "ü", "ouml": "ö", "auml": "ä", "szlig": "ß", "hellip": "…", "mdash": "—",
        "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "copy": "©",
    ]

    /// `&name;`, `&#N;` and `&#xH;`; anything else stays as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
                out.append("&")
                rest = after
                continue
            }
            let name = after[..<semicolon]
            var decoded: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                decoded = namedEntities[String(name)]
            }
            if let decoded {
                out += decoded
                rest = after[after.index(after: semicolon)...]
            } else {
                out.append("&")
                rest = after
            }
        }
        return out + rest
    }
}
