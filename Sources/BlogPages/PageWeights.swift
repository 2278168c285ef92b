import Foundation
import BlogModel
import BlogWire

// What a post weighs is a question of its markup, so the defaults that
// compute it live here, not in the model.

extension PostWeigher {
    /// The weights as the pages render: escaped text, photos' markup.
    public static let markup = PostWeigher(text: { PageRenderer.weight(title: $0, content: $1) },
                                           photos: { PageRenderer.weight(photos: $0) })
}

extension PageLayout {
    /// A layout that weighs posts by their markup.
    public init(pageSize: Int, pageBytes: Int = Self.defaultPageBytes) {
        self.init(pageSize: pageSize, pageBytes: pageBytes, weigher: .markup)
    }
}

extension PostRecord {
    /// A record whose weight, unless given, is its text's and photos'
    /// markup (`PageRenderer.weight(title:content:photos:)`).
    public init(id: Int64, userID: Int64, title: String, content: String, createdAt: Date,
                page: Int = 1, weight: Int? = nil, updatedAt: Date? = nil, place: Place? = nil,
                photos: [PostPhoto] = [], contentHTML: String? = nil) {
        self.init(id: id, userID: userID, title: title, content: content, createdAt: createdAt, page: page,
                  weight: weight ?? PageRenderer.weight(title: title, content: content, photos: photos),
                  updatedAt: updatedAt, place: place, photos: photos, contentHTML: contentHTML)
    }
}

extension PostStorage {
    /// `addPost` with the weight the service computes and, unless told,
    /// 50 posts a page (for tests and tools).
    public func addPost(userID: Int64, title: String, content: String, at date: Date,
                        layout: PageLayout = PageLayout(pageSize: 50)) throws(StorageError) -> PostRecord {
        try addPost(userID: userID, title: title, content: content,
                    weight: PageRenderer.weight(title: title, content: content), at: date, layout: layout)
    }

    /// `editPost` with the photos weighed by their markup.
    public func editPost(id: Int64, ofUserID userID: Int64, _ edit: PostEdit, weight: Int,
                         at date: Date) throws(StorageError) -> EditedPost? {
        try editPost(id: id, ofUserID: userID, edit, weight: weight, photoWeight: PostWeigher.markup.photos, at: date)
    }

    /// Replaces the title and text of a post (clearing its HTML source);
    /// its photos and place stay. (See `editPost(id:ofUserID:_:weight:at:)`.)
    public func editPost(id: Int64, ofUserID userID: Int64, title: String, content: String, weight: Int,
                         at date: Date) throws(StorageError) -> PostRecord? {
        try editPost(id: id, ofUserID: userID, PostEdit(title: title, content: content), weight: weight,
                     photoWeight: PostWeigher.markup.photos, at: date)?.record
    }
}
