import BlogApp
import BlogCore

/// The `inbox` target: an ActivityPub inbox body. Parsing never crashes;
/// every id it returns is an http(s) URL within the length limit, and a
/// Note's text and name stay within theirs.
func checkInbox(_ data: [UInt8]) {
    checkInboxSignature(data)
    guard let activity = try? InboundActivity.parse(data) else { return }
    var ids = [activity.actor]
    switch activity {
    case .follow(let id, _, let object), .delete(let id, _, let object), .reaction(_, let id, _, let object):
        ids += [id, object]
    case .create(let id, _, let note), .update(let id, _, let note):
        ids += [id, note.id, note.author] + [note.inReplyTo, note.url].compactMap { $0 }
        precondition(note.text.count <= InboundActivity.textLimit, "a Note's text over its limit")
        precondition((note.name?.count ?? 0) <= InboundActivity.nameLimit && (note.authorName?.count ?? 0) <= InboundActivity.nameLimit,
                     "a name over its limit")
    case .undoFollow(let id, _, let follow, let object): ids += [id] + [follow, object].compactMap { $0 }
    case .undoReaction(_, let id, _, let reaction, let object): ids += [id] + [reaction, object].compactMap { $0 }
    case .undo(let id, _, let object): ids += [id, object]
    case .deleteActor(let id, _): ids += [id]
    case .other: break
    }
    for id in ids { precondition(BlogService.webURL(id) != nil, "an id that is no http(s) URL: \(id.prefix(80))") }
}
