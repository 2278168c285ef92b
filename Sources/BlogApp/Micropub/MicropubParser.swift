import Foundation

/// Reads a Micropub POST body, form-encoded or JSON, into an action and
/// the access token it carried (if any). Multipart bodies (a post with
/// a file) are read by `MultipartForm` first and come here as form fields.
///
///     let (action, token) = try MicropubParser.parse(body: bytes, contentType: "application/json")
enum MicropubParser {
    /// Arrays and objects a JSON body may nest: far more than any mf2
    /// post needs, far less than would exhaust a parser's stack.
    static let maxDepth = 16

    static func parse(body: [UInt8], contentType: String?) throws(MicropubError) -> (MicropubAction, token: String?) {
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        switch type {
        case "application/json":
            return (try json(body), nil)
        case "application/x-www-form-urlencoded", nil:
            let form = FormData(bytes: body)
            return (try self.form(form), form["access_token"])
        default:
            throw .invalidRequest("Send application/x-www-form-urlencoded, multipart/form-data or application/json.")
        }
    }

    static func form(_ form: FormData) throws(MicropubError) -> MicropubAction {
        guard !form.hasInvalidText else { throw .invalidRequest("The form is not UTF-8.") }
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
        entry.photos = form.all("photo")
        return .create(entry)
    }

    static func json(_ body: [UInt8]) throws(MicropubError) -> MicropubAction {
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
        if let location = (properties["location"] as? [Any])?.first { entry.location = try self.location(location) }
        entry.photos = (properties["photo"] as? [Any] ?? []).compactMap { value in
            (value as? String) ?? ((value as? [String: Any])?["value"] as? String)
        }
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
    /// tags removed, the common entities decoded.
    static func plainText(_ html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" { inTag = true; continue }
            if character == ">", inTag { inTag = false; continue }
            if !inTag { out.append(character) }
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: entity, with: character)
        }
        return out
    }
}
