import BlogCore
import BlogModel
import Foundation

extension InboundActivity {
    /// The largest body an inbox reads: Mastodon's activities are a few
    /// KiB; a Note with a long reply stays far under.
    public static let maxBytes = 256 * 1024
    /// Arrays and objects nested deeper are refused unparsed: an activity
    /// with its `@context` and an embedded Note nests five or six deep.
    public static let maxDepth = 24
    /// Longest text kept of a Note's content, and of a name.
    public static let textLimit = WebmentionContent.textLimit
    public static let nameLimit = WebmentionContent.fieldLimit

    /// Types taken as a post that can answer one of ours.
    static let noteTypes: Set<String> = ["Note", "Article", "Page", "Question"]

    /// Reads an inbox body. Pure: no fetch, no storage. Wrong types,
    /// missing ids, ids that are not http(s) URLs, and embedded objects
    /// claiming another actor are refused; unknown types are `.other`.
    public static func parse(_ body: [UInt8]) throws(InboundActivityError) -> InboundActivity {
        guard body.count <= maxBytes else { throw .tooLarge }
        guard JSONDepth.isWithin(maxDepth, body) else { throw .tooDeep }
        guard let top = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { throw .notAnObject }
        let type = try typeName(top, "type")
        let actor = try requiredID(top["actor"], "actor")
        let id = try requiredID(top["id"], "id")
        switch type {
        case "Follow":
            return .follow(id: id, actor: actor, object: try requiredID(top["object"], "object"))
        case "Like", "Announce":
            let reaction = Reaction(rawValue: type)!
            return .reaction(reaction, id: id, actor: actor, object: try requiredID(top["object"], "object"))
        case "Create", "Update":
            guard let object = top["object"] as? [String: Any], noteTypes.contains(try typeName(object, "object.type"))
            else {
                if top["object"] == nil { throw .missing("object") }
                return .other(type: type, actor: actor)
            }
            let note = try note(object, actor: actor, embeddedActor: top["actor"])
            return type == "Create" ? .create(id: id, actor: actor, note: note) : .update(id: id, actor: actor, note: note)
        case "Delete":
            let object = try requiredID(top["object"], "object")
            return object == actor ? .deleteActor(id: id, actor: actor) : .delete(id: id, actor: actor, object: object)
        case "Undo":
            return try undo(top["object"], id: id, actor: actor)
        default:
            return .other(type: type, actor: actor)
        }
    }

    private static func undo(_ value: Any?, id: String, actor: String) throws(InboundActivityError) -> InboundActivity {
        guard let value, !(value is NSNull) else { throw .missing("object") }
        if value is String { return .undo(id: id, actor: actor, objectID: try requiredID(value, "object")) }
        guard let inner = value as? [String: Any] else { throw .wrongType("object") }
        let type = try typeName(inner, "object.type")
        // Only an actor's own Follow or Like can be undone by it.
        if let innerActor = try optionalID(inner["actor"], "object.actor"), innerActor != actor {
            throw .notTheActors("object.actor")
        }
        let innerID = try optionalID(inner["id"], "object.id")
        let object = try optionalID(inner["object"], "object.object")
        switch type {
        case "Follow": return .undoFollow(id: id, actor: actor, followID: innerID, object: object)
        case "Like", "Announce":
            return .undoReaction(Reaction(rawValue: type)!, id: id, actor: actor, reactionID: innerID, object: object)
        default: return .other(type: "Undo", actor: actor)
        }
    }

    private static func note(_ object: [String: Any], actor: String, embeddedActor: Any?) throws(InboundActivityError)
        -> InboundNote {
        let id = try requiredID(object["id"], "object.id")
        if let author = try optionalID(object["attributedTo"], "object.attributedTo"), author != actor {
            throw .notTheActors("object.attributedTo")
        }
        let html: String
        switch object["content"] {
        case nil, is NSNull:
            let map = object["contentMap"] as? [String: Any] ?? [:]
            html = map.keys.sorted().lazy.compactMap { map[$0] as? String }.first ?? ""
        case let text as String: html = text
        default: throw .wrongType("object.content")
        }
        let name: String?
        switch object["name"] {
        case nil, is NSNull: name = nil
        case let text as String: name = String(text.prefix(nameLimit))
        default: throw .wrongType("object.name")
        }
        let authorName = [embeddedActor, object["attributedTo"]].lazy
            .compactMap { $0 as? [String: Any] }
            .compactMap { ($0["name"] as? String) ?? ($0["preferredUsername"] as? String) }
            .first.map { String($0.prefix(nameLimit)) }
        return InboundNote(id: id, author: actor, authorName: authorName,
                           inReplyTo: try optionalID(object["inReplyTo"], "object.inReplyTo"),
                           text: String(HTMLTree(html).root.text.prefix(textLimit)), name: name,
                           url: link(object["url"]), published: date(object["published"]))
    }

    /// `type`: a string, or (JSON-LD) an array whose first member is one.
    private static func typeName(_ object: [String: Any], _ field: String) throws(InboundActivityError) -> String {
        switch object["type"] {
        case nil, is NSNull: throw .missing(field)
        case let text as String: return text
        case let list as [Any]:
            guard let first = list.first as? String else { throw .wrongType(field) }
            return first
        default: throw .wrongType(field)
        }
    }

    private static func requiredID(_ value: Any?, _ field: String) throws(InboundActivityError) -> String {
        guard let id = try optionalID(value, field) else { throw .missing(field) }
        return id
    }

    /// An id: a URL string, or an object carrying one as `id`.
    private static func optionalID(_ value: Any?, _ field: String) throws(InboundActivityError) -> String? {
        let text: String
        switch value {
        case nil, is NSNull: return nil
        case let string as String: text = string
        case let object as [String: Any]:
            guard let id = object["id"] as? String else {
                throw object["id"] == nil ? .missing(field + ".id") : .wrongType(field + ".id")
            }
            text = id
        default: throw .wrongType(field)
        }
        guard BlogService.webURL(text) != nil else { throw .notAURL(field) }
        return text
    }

    /// A page link (`url`): a string, a Link's `href`, or the first of a
    /// list of those; nil when none is an http(s) URL.
    private static func link(_ value: Any?) -> String? {
        switch value {
        case let text as String: return BlogService.webURL(text) != nil ? text : nil
        case let object as [String: Any]: return link(object["href"])
        case let list as [Any]: return list.prefix(8).lazy.compactMap { link($0) }.first
        default: return nil
        }
    }

    private static func date(_ value: Any?) -> Date? {
        guard let text = value as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
