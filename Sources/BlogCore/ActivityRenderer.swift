import Foundation
import BlogModel

/// Turns a queued activity into the JSON sent to every inbox (rendered
/// once, at the fan-out). Nil: nothing to send (a `Create` or `Update` of
/// a post that is gone since).
public protocol ActivityRenderer: Sendable {
    func render(_ activity: QueuedActivity, user: UserRecord, post: PostRecord?, baseURL: String) -> String?
}

/// The smallest documents the shared decisions allow: a `Create` or
/// `Update` of a `Note`, and a `Delete` of a `Tombstone`, public and to the
/// followers, with the ids everyone agreed on (`<object>#create`,
/// `#update-<unix ms>`, `#delete`). The actor's part of the server gives
/// the full documents.
public struct MinimalActivityRenderer: ActivityRenderer {
    public static let publicAudience = "https://www.w3.org/ns/activitystreams#Public"

    public init() {}

    public func render(_ activity: QueuedActivity, user: UserRecord, post: PostRecord?, baseURL: String) -> String? {
        let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        let actor = base + "ap/\(user.name)"
        let object = actor + "/posts/\(activity.postID)"
        let followers = actor + "/followers"
        var document: [String: Any] = [
            "@context": "https://www.w3.org/ns/activitystreams", "actor": actor,
            "to": [Self.publicAudience], "cc": [followers],
        ]
        switch activity.kind {
        case .delete:
            document["id"] = object + "#delete"
            document["type"] = "Delete"
            document["object"] = ["id": object, "type": "Tombstone"]
        case .create, .update:
            guard let post else { return nil }
            var note: [String: Any] = [
                "id": object, "type": "Note", "attributedTo": actor, "url": base + "\(user.name)/\(post.id).html",
                "published": Self.time(post.createdAt), "content": Self.html(post),
                "to": [Self.publicAudience], "cc": [followers],
            ]
            if activity.kind == .update {
                let milliseconds = Int64((activity.queuedAt.timeIntervalSince1970 * 1000).rounded(.down))
                document["id"] = object + "#update-\(milliseconds)"
                document["type"] = "Update"
                note["updated"] = Self.time(post.updatedAt ?? activity.queuedAt)
            } else {
                document["id"] = object + "#create"
                document["type"] = "Create"
                document["published"] = Self.time(post.createdAt)
            }
            document["object"] = note
        }
        guard let data = try? JSONSerialization.data(withJSONObject: document,
                                                     options: [.sortedKeys, .withoutEscapingSlashes]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The title and the text as escaped paragraphs: never the author's
    /// markup as such.
    static func html(_ post: PostRecord) -> String {
        let paragraphs = post.content.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map {
            "<p>" + escape($0).replacingOccurrences(of: "\n", with: "<br>") + "</p>"
        }
        return "<p><strong>\(escape(post.title))</strong></p>" + paragraphs.joined()
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func time(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
