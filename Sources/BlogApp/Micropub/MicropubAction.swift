import Foundation

/// What a Micropub request asks, read from a form or a JSON body.
enum MicropubAction: Equatable {
    case create(MicropubEntry)
    case update(url: String, MicropubUpdate)
    case delete(url: String)
    case undelete(url: String)
}

/// The properties of a new post that blogd keeps: `name` (the title),
/// `content`, `location`, `photo` and `category` (tags). Others (`published`,
/// `syndication`...) are accepted and not kept, as the Micropub
/// specification lets a server do with what it does not support.
struct MicropubEntry: Equatable {
    var name: String?
    var content: String?
    /// A `geo:` URI, or latitude and longitude of an `h-geo`.
    var location: (latitude: String, longitude: String)?
    /// The HTML `content` was derived from, when it came as `{"html": …}`.
    var contentHTML: String?
    /// Photo URLs, in order, with the alt text a JSON `{"value", "alt"}` gave.
    var photos: [MicropubPhoto] = []
    /// The `mp-photo-alt` values of a form, in order: the alt text of its
    /// photos as the post shows them (the URLs first, then the files).
    var photoAlts: [String] = []
    /// The `category` values, as sent (tags: `Micropub.checkedCategories`).
    var categories: [String] = []

    static func == (a: MicropubEntry, b: MicropubEntry) -> Bool {
        a.name == b.name && a.content == b.content && a.contentHTML == b.contentHTML && a.photos == b.photos
            && a.photoAlts == b.photoAlts && a.categories == b.categories
            && a.location?.latitude == b.location?.latitude && a.location?.longitude == b.location?.longitude
    }
}

/// A photo by URL, and its alt text when the client gave one.
struct MicropubPhoto: Equatable {
    var url: String
    var alt: String?
}

/// A `geo:` URI's or an `h-geo`'s coordinates, as sent.
struct MicropubLocation: Equatable {
    var latitude: String
    var longitude: String
}

/// A JSON update: properties replaced, values added, properties or values
/// removed.
struct MicropubUpdate: Equatable {
    var replace: [String: [String]] = [:]
    var add: [String: [String]] = [:]
    /// Properties removed whole.
    var removeProperties: [String] = []
    /// Values removed from properties.
    var removeValues: [String: [String]] = [:]
    /// The HTML of a replaced `content` sent as `{"html": …}`.
    var contentHTML: String?
    /// `replace` and `add` of `photo`, with alt texts.
    var replacePhotos: [MicropubPhoto]?
    var addPhotos: [MicropubPhoto] = []
    /// `replace` of `location`.
    var location: MicropubLocation?
}
