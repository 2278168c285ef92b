import BlogCore
import BlogPages
import BlogWire

/// What a request to `ActivityPubPages` asks for, from its path alone.
/// Names and ids are as sent, checked only for their shape: the storage
/// says whether they exist.
enum ActivityPubRoute: Equatable {
    case webFinger
    case nodeInfoLinks
    case nodeInfo(schema: String)
    case actor(String)
    case outbox(String)
    case followers(String)
    case following(String)
    case object(String, id: Int64)
    /// The blog's page, `NAME.html`, asked as JSON: the actor.
    case actorPage(String)
    /// A post's page, `NAME/ID.html`, asked as JSON: the object.
    case objectPage(String, id: Int64)
    /// `ap` itself: the site's own actor (`InstanceActorDocument`).
    case instanceActor

    static let webFingerPath = "/.well-known/webfinger"
    static let nodeInfoPath = "/.well-known/nodeinfo"

    /// The route of an `ap/` or well-known path; nil for any other (the
    /// inboxes are another application's).
    static func document(_ path: String) -> ActivityPubRoute? {
        switch path {
        case webFingerPath: return .webFinger
        case nodeInfoPath: return .nodeInfoLinks
        default: break
        }
        if path.hasPrefix("/nodeinfo/") {
            let schema = String(path.dropFirst("/nodeinfo/".count))
            return NodeInfoDocument.schemas.contains(schema) ? .nodeInfo(schema: schema) : nil
        }
        if path == "/" + PageRenderer.activityFolder { return .instanceActor }
        let prefix = "/" + PageRenderer.activityFolder + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard let name = parts.first.map(String.init), isName(name) else { return nil }
        switch parts.count {
        case 1: return .actor(name)
        case 2 where parts[1] == "outbox": return .outbox(name)
        case 2 where parts[1] == "followers": return .followers(name)
        case 2 where parts[1] == "following": return .following(name)
        case 3 where parts[1] == "posts": return id(parts[2]).map { .object(name, id: $0) }
        default: return nil
        }
    }

    /// The route of a page's path (`/alice.html`, `/alice/17.html`); nil
    /// for any other (an archive page, the index, a tag page).
    static func page(_ path: String) -> ActivityPubRoute? {
        guard path.hasSuffix(".html"), path.hasPrefix("/") else { return nil }
        let parts = path.dropFirst().dropLast(".html".count).split(separator: "/", omittingEmptySubsequences: false)
        guard let name = parts.first.map(String.init), isName(name) else { return nil }
        switch parts.count {
        case 1: return .actorPage(name)
        case 2: return id(parts[1]).map { .objectPage(name, id: $0) }
        default: return nil
        }
    }

    /// A user's name by its shape, not one of the site's own names
    /// (`ap/inbox` is the shared inbox, `index.html` the list of blogs).
    private static func isName(_ text: String) -> Bool {
        guard let name = try? Username(text) else { return false }
        return !BlogService.reservedNames.contains(name.key)
    }

    /// A post id: 1 to 18 digits, no sign, no leading zero.
    private static func id(_ text: Substring) -> Int64? {
        guard (1...18).contains(text.utf8.count), text.first != "0",
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
