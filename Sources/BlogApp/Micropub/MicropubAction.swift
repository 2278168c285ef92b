import Foundation

/// What a Micropub request asks, read from a form or a JSON body.
enum MicropubAction: Equatable {
    case create(MicropubEntry)
    case update(url: String, MicropubUpdate)
    case delete(url: String)
    case undelete(url: String)
}

/// The properties of a new post that blogd keeps: `name` (the title),
/// `content`, `location` and `photo`. Others (`category`, `published`,
/// `syndication`...) are accepted and not kept, as the Micropub
/// specification lets a server do with what it does not support.
struct MicropubEntry: Equatable {
    var name: String?
    var content: String?
    /// A `geo:` URI, or latitude and longitude of an `h-geo`.
    var location: (latitude: String, longitude: String)?
    /// Photo URLs, in order.
    var photos: [String] = []

    static func == (a: MicropubEntry, b: MicropubEntry) -> Bool {
        a.name == b.name && a.content == b.content && a.photos == b.photos
            && a.location?.latitude == b.location?.latitude && a.location?.longitude == b.location?.longitude
    }
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
}
