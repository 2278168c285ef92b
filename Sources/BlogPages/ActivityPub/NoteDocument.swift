import BlogModel
import BlogWire
import Foundation

/// A post as an ActivityPub `Note`, a pure function of the post: what a
/// server shows in its timelines, and the object of the `Create` and
/// `Update` activities sent to followers (`ActivityDocuments`).
///
/// A `Note`, not an `Article`: Mastodon and its kin show a Note's whole
/// text, photos and tags in the timeline, and an Article only as its
/// title and a link; blogd's posts are short (a title and a text of a
/// message's size), written on a phone. The title, when there is one,
/// leads the content in bold.
///
///     let note = NoteDocument(post: post, user: "alice", urls: ActivityURLs(base: "https://blog.example/"))
///     note.id          // https://blog.example/ap/alice/posts/17
///     note.document    // the JSON served at that URL
public struct NoteDocument: Sendable, Equatable {
    public let post: PostRecord
    /// The author's name as stored (the case given at registration).
    public let user: String
    public let urls: ActivityURLs

    public init(post: PostRecord, user: String, urls: ActivityURLs) {
        self.post = post
        self.user = user
        self.urls = urls
    }

    /// The object's URL, its `id`.
    public var id: String { urls.object(user, id: post.id) }

    /// The Note as served at its URL, with its `@context`.
    public var document: ActivityJSON { ActivityContext.document(object) }

    /// The Note as an activity's `object` (no `@context`).
    public var object: ActivityJSON {
        var fields: [(String, ActivityJSON)] = [
            ("id", .string(id)),
            ("type", "Note"),
            ("attributedTo", .string(urls.actor(user))),
            ("url", .string(urls.page(user, id: post.id))),
            ("published", .string(PostDate.machine(post.createdAt))),
        ]
        if let updated = post.updatedAt { fields.append(("updated", .string(PostDate.machine(updated)))) }
        fields += [
            ("to", .array([.string(ActivityContext.publicAudience)])),
            ("cc", .array([.string(urls.followers(user))])),
            ("sensitive", false),
            ("content", .string(content)),
        ]
        if !post.photos.isEmpty { fields.append(("attachment", .array(post.photos.map(attachment)))) }
        let tags = post.tags
        if !tags.isEmpty {
            fields.append(("tag", .array(tags.map { tag in
                .object([("type", "Hashtag"), ("name", .string("#" + tag)), ("href", .string(urls.tag(tag)))])
            })))
        }
        if let place = post.place {
            fields.append(("location", .object([
                ("type", "Place"),
                ("name", .string("\(place.latitude), \(place.longitude)")),
                ("latitude", .decimal(place.latitude)),
                ("longitude", .decimal(place.longitude)),
            ])))
        }
        return .object(fields)
    }

    /// The post as HTML, as its page shows it: the title (if any) in bold
    /// as the first paragraph, then the text escaped, its line breaks
    /// `<br>`, its URLs and hashtags links (`LinkedText`, absolute), then
    /// the tags given beside the text that it does not show.
    public var content: String {
        var out: [UInt8] = []
        if !post.title.isEmpty {
            out += Array("<p><strong>".utf8)
            HTMLEscape.append(post.title, to: &out)
            out += Array("</strong></p>".utf8)
        }
        out += Array("<p>".utf8)
        LinkedText.append(post.content, tagBase: urls.base, to: &out)
        out += Array("</p>".utf8)
        PageRenderer.appendTags(post.categories, content: post.content, base: urls.base, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A photo as an `Image`: the JPEG the page links, its size, and its
    /// alt text as `name` (what Mastodon shows as the description).
    private func attachment(_ photo: PostPhoto) -> ActivityJSON {
        .object([
            ("type", "Image"),
            ("mediaType", "image/jpeg"),
            ("url", .string(urls.file(photo.file))),
            ("name", .string(photo.alt)),
            ("width", .int(photo.width)),
            ("height", .int(photo.height)),
        ])
    }
}
