import BlogWire

/// What an edit of a post sets (`BlogStorage.editPost`): its title and
/// text always; its HTML source, photos and place as told.
public struct PostEdit: Sendable, Equatable {
    public var title: String
    public var content: String
    /// The HTML the text was derived from (Micropub's `{"html": …}`),
    /// stored beside it; nil stores none, so that an edit with plain text
    /// clears what an earlier one kept.
    public var contentHTML: String?
    /// The photos the post is to have, in order: ones it has, or the
    /// author's uploads on no post; the ones it loses are deleted. nil
    /// keeps them as they are.
    public var photos: [PhotoAttachment]?
    public var place: PlaceEdit
    /// The tags given beside the text the post is to have (normalized,
    /// `Hashtags.normalized`); nil keeps them. The post's tags become its
    /// new text's hashtags and these, in the edit's transaction.
    public var categories: [String]?

    public init(title: String, content: String, contentHTML: String? = nil, photos: [PhotoAttachment]? = nil,
                place: PlaceEdit = .keep, categories: [String]? = nil) {
        self.title = title
        self.content = content
        self.contentHTML = contentHTML
        self.photos = photos
        self.place = place
        self.categories = categories
    }
}

/// What an edit does to a post's place.
public enum PlaceEdit: Sendable, Equatable {
    case keep
    case set(Place)
    case remove
}

/// A post as an edit left it, and the photos it took off (their rows are
/// gone; the caller removes their files).
public struct EditedPost: Sendable, Equatable {
    public var record: PostRecord
    public var removedPhotos: [PostPhoto]

    public init(record: PostRecord, removedPhotos: [PostPhoto] = []) {
        self.record = record
        self.removedPhotos = removedPhotos
    }
}
