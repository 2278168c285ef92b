import BlogModel

/// What a post request of the web client or Micropub carries beyond the
/// protocol's fields (`Request`): photos with their alt text, the HTML the
/// text was derived from, and what an edit does to the photos and place.
/// The blog port's own requests carry none (`PostExtras()`).
///
///     let extras = PostExtras(photos: [PhotoAttachment(name: upload.name, alt: "A red door")])
///     server.perform(.newPost(user: alice, title: "Door", content: ""), extras: extras, session: session)
public struct PostExtras: Sendable, Equatable {
    /// On a `newpost` or `geopost`: its photos (the author's uploads), in
    /// order. On an `editpost`: the photos the post is to have; nil keeps
    /// them.
    public var photos: [PhotoAttachment]?
    /// The HTML the text was derived from, stored beside it (never
    /// rendered); nil for none, which on an edit clears what was kept.
    public var contentHTML: String?
    /// On an `editpost`: what becomes of the place.
    public var place: PlaceEdit
    /// Tags given beside the text (normalized, `Hashtags.normalized`): a
    /// new post's; on an `editpost` the ones the post is to have, nil
    /// keeping them. The text's hashtags are tags whatever this says.
    public var categories: [String]?

    public init(photos: [PhotoAttachment]? = nil, contentHTML: String? = nil, place: PlaceEdit = .keep,
                categories: [String]? = nil) {
        self.photos = photos
        self.contentHTML = contentHTML
        self.place = place
        self.categories = categories
    }

    /// Nothing beyond the protocol's fields.
    public init() {
        self.init(photos: nil)
    }

    /// Photos by name, without alt text.
    public init(photoNames: [String]) {
        self.init(photos: photoNames.isEmpty ? nil : PostPhoto.attachments(photoNames))
    }

    /// The bytes it adds to a request, as a budget counts them.
    public var bytes: Int {
        (photos ?? []).reduce(contentHTML?.utf8.count ?? 0) { $0 + 1 + $1.name.utf8.count + $1.alt.utf8.count }
            + (categories ?? []).reduce(0) { $0 + 1 + $1.utf8.count }
    }
}

/// `[]` for none and `["name", …]` for photos by name, as the front doors
/// passed before there was more than the photos' names.
extension PostExtras: ExpressibleByArrayLiteral {
    public init(arrayLiteral names: String...) {
        self.init(photoNames: names)
    }
}
