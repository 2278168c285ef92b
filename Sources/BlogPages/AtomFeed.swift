import BlogWire
import Foundation
import BlogModel

/// An Atom feed (RFC 4287) rendered straight into UTF-8 bytes.
///
/// A pure function of its inputs: the same arguments give the same bytes
/// (no clock is read), so a feed file is only rewritten when it changed.
///
/// ```swift
/// let post = AtomFeed.Entry(
///     id: "tag:example.org,2026:post-17", title: "Hello", author: "alice",
///     link: "https://example.org/alice.html#post-17", content: "Line one\nLine two",
///     published: createdAt, updated: createdAt)
/// let bytes = AtomFeed.render(
///     id: "tag:example.org,2026:alice", title: "alice – blog",
///     selfURL: "https://example.org/alice.atom", alternateURL: "https://example.org/alice.html",
///     updated: post.updated, entries: [post])
/// ```
public enum AtomFeed {
    /// One post of the feed.
    public struct Entry: Sendable, Equatable {
        /// A stable IRI, e.g. `tag:example.org,2026:post-17`: readers tell
        /// entries apart by it, so it must never change for a post.
        public var id: String
        /// Plain text, any characters.
        public var title: String
        /// The user name.
        public var author: String
        /// Absolute URL of the post's own page.
        public var link: String
        /// The post's plain text; line breaks are kept, as on the page.
        public var content: String
        public var published: Date
        /// The same as `published` unless the post was edited.
        public var updated: Date
        /// Where it was written: a GeoRSS `point`.
        public var place: Place?
        /// Its photos, shown before the text as on the page.
        public var photos: [PostPhoto]
        /// Absolute URL of the public folder (ends with `/`): the photos'
        /// paths follow it, as readers need absolute links.
        public var siteURL: String
        /// The tags given beside the text (its hashtags are tags too):
        /// each tag is a `category`, and these are listed after the text
        /// as on the page.
        public var categories: [String]

        public init(id: String, title: String, author: String, link: String, content: String,
                    published: Date, updated: Date, place: Place? = nil, photos: [PostPhoto] = [],
                    siteURL: String = "", categories: [String] = []) {
            self.categories = categories
            self.place = place
            self.photos = photos
            self.siteURL = siteURL
            self.id = id
            self.title = title
            self.author = author
            self.link = link
            self.content = content
            self.published = published
            self.updated = updated
        }
    }

    /// The feed document, `<?xml …?>` first.
    ///
    /// - Parameters:
    ///   - id: the feed's stable IRI.
    ///   - selfURL: absolute URL of the feed file itself.
    ///   - alternateURL: absolute URL of the HTML page the feed mirrors.
    ///   - updated: the newest entry's `updated`, or a fixed time for an
    ///     empty feed.
    ///   - entries: newest first, already limited by the caller.
    ///   - subtitle: a line describing the feed (`<subtitle>`), if any.
    public static func render(id: String, title: String, subtitle: String? = nil, selfURL: String, alternateURL: String,
                              updated: Date, entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        // Escaping grows text a little; one reservation keeps the common
        // case to a single allocation.
        out.reserveCapacity(1024 + entries.reduce(0) { $0 + 640 + $1.content.utf8.count * 5 / 4 })
        out += "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"".utf8
        // GeoRSS-Simple, declared only where a post has a place: feeds
        // without one stay as they were.
        if entries.contains(where: { $0.place != nil }) { out += " xmlns:georss=\"http://www.georss.org/georss\"".utf8 }
        out += ">\n".utf8
        element("id", id, indent: 1, to: &out)
        element("title", title, attributes: " type=\"text\"", indent: 1, to: &out)
        if let subtitle { element("subtitle", subtitle, attributes: " type=\"text\"", indent: 1, to: &out) }
        date("updated", updated, indent: 1, to: &out)
        link(rel: "self", type: "application/atom+xml", href: selfURL, indent: 1, to: &out)
        link(rel: "alternate", type: "text/html", href: alternateURL, indent: 1, to: &out)
        // One scratch buffer for every entry's HTML, so 20 long posts cost
        // one allocation, not twenty.
        var html: [UInt8] = []
        for entry in entries {
            out += "  <entry>\n".utf8
            element("id", entry.id, indent: 2, to: &out)
            element("title", entry.title, attributes: " type=\"text\"", indent: 2, to: &out)
            link(rel: "alternate", type: "text/html", href: entry.link, indent: 2, to: &out)
            date("published", entry.published, indent: 2, to: &out)
            date("updated", entry.updated, indent: 2, to: &out)
            out += "    <author>\n".utf8
            element("name", entry.author, indent: 3, to: &out)
            out += "    </author>\n".utf8
            if let place = entry.place {
                // "LAT LON", as GeoRSS-Simple orders them.
                element("georss:point", "\(place.latitude) \(place.longitude)", indent: 2, to: &out)
            }
            for tag in Hashtags.tags(content: entry.content, categories: entry.categories) {
                out += "    <category term=\"".utf8
                appendEscaped(tag.utf8, to: &out)
                out += "\"/>\n".utf8
            }
            // type="html": the page's own rendering of the photos and the
            // text (escaped, <br> for line breaks), so a reader shows what
            // the page shows.
            html.removeAll(keepingCapacity: true)
            PageRenderer.appendPhotos(entry.photos, base: entry.siteURL, to: &html)
            LinkedText.append(entry.content, tagBase: entry.siteURL, to: &html)
            PageRenderer.appendTags(entry.categories, content: entry.content, base: entry.siteURL, to: &html)
            out += "    <content type=\"html\">".utf8
            appendEscaped(html, to: &out)
            out += "</content>\n  </entry>\n".utf8
        }
        out += "</feed>\n".utf8
        return out
    }

    private static func element(_ name: String, _ text: String, attributes: String = "",
                                indent: Int, to out: inout [UInt8]) {
        out += repeatElement(UInt8(ascii: " "), count: indent * 2)
        out += "<\(name)\(attributes)>".utf8
        appendEscaped(text.utf8, to: &out)
        out += "</\(name)>\n".utf8
    }

    private static func link(rel: String, type: String, href: String, indent: Int, to out: inout [UInt8]) {
        out += repeatElement(UInt8(ascii: " "), count: indent * 2)
        out += "<link rel=\"\(rel)\" type=\"\(type)\" href=\"".utf8
        appendEscaped(href.utf8, to: &out)
        out += "\"/>\n".utf8
    }

    private static func date(_ name: String, _ date: Date, indent: Int, to out: inout [UInt8]) {
        out += repeatElement(UInt8(ascii: " "), count: indent * 2)
        out += "<\(name)>".utf8
        appendTimestamp(date, to: &out)
        out += "</\(name)>\n".utf8
    }

    /// RFC 3339 in UTC with milliseconds, `2026-11-25T18:42:26.123Z`.
    ///
    /// Rounded to the nearest millisecond rather than cut: a Date holds
    /// binary seconds, and `.123` is often stored as `.12299999…`.
    /// The calendar is PostDate's, the pages' own; PostDate.machine is not
    /// used because it has no fraction of a second.
    static func appendTimestamp(_ date: Date, to out: inout [UInt8]) {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = millis / 1000
        var fraction = millis % 1000
        if fraction < 0 { fraction += 1000; seconds -= 1 }
        let p = PostDate.parts(Date(timeIntervalSince1970: TimeInterval(seconds)))
        appendDigits(p.year, 4, to: &out); out.append(UInt8(ascii: "-"))
        appendDigits(p.month, 2, to: &out); out.append(UInt8(ascii: "-"))
        appendDigits(p.day, 2, to: &out); out.append(UInt8(ascii: "T"))
        appendDigits(p.hour, 2, to: &out); out.append(UInt8(ascii: ":"))
        appendDigits(p.minute, 2, to: &out); out.append(UInt8(ascii: ":"))
        appendDigits(p.second, 2, to: &out); out.append(UInt8(ascii: "."))
        appendDigits(Int(fraction), 3, to: &out); out.append(UInt8(ascii: "Z"))
    }

    private static func appendDigits(_ value: Int, _ width: Int, to out: inout [UInt8]) {
        let digits = String(value).utf8
        if digits.count < width { out += repeatElement(UInt8(ascii: "0"), count: width - digits.count) }
        out += digits
    }

    /// Appends valid UTF-8 escaped for XML 1.0 text and quoted attributes.
    ///
    /// XML 1.0 has no way to carry most C0 controls, U+FFFE or U+FFFF, not
    /// even as character references, so they become U+FFFD: the feed stays
    /// well-formed and the reader still sees that something was there.
    /// Tab, LF and CR are written as references, because a parser would
    /// otherwise turn CR into LF, and all three into spaces in attributes.
    /// `>` is always escaped, which also keeps `]]>` out.
    static func appendEscaped(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { appendEscaped(buffer: $0, to: &out) }
        if done == nil { Array(bytes).withUnsafeBufferPointer { appendEscaped(buffer: $0, to: &out) } }
    }

    private static func appendEscaped(buffer: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        // Runs of bytes that need nothing are copied whole: most text is
        // such a run, and a byte-by-byte append is several times slower.
        var runStart = 0
        var i = 0
        while i < buffer.count {
            let byte = buffer[i]
            let escape: [UInt8]
            var width = 1
            switch byte {
            case UInt8(ascii: "&"): escape = ampersand
            case UInt8(ascii: "<"): escape = lessThan
            case UInt8(ascii: ">"): escape = greaterThan
            case UInt8(ascii: "\""): escape = quote
            case UInt8(ascii: "'"): escape = apostrophe
            case 0x09: escape = tab
            case 0x0A: escape = lineFeed
            case 0x0D: escape = carriageReturn
            case 0x00...0x1F: escape = replacement
            // U+FFFE and U+FFFF are EF BF BE and EF BF BF; any other
            // sequence starting with EF is a legal character.
            case 0xEF where i + 2 < buffer.count && buffer[i + 1] == 0xBF && buffer[i + 2] >= 0xBE:
                escape = replacement
                width = 3
            default:
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<i]))
            out.append(contentsOf: escape)
            i += width
            runStart = i
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<buffer.count]))
    }

    private static let ampersand = Array("&amp;".utf8)
    private static let lessThan = Array("&lt;".utf8)
    private static let greaterThan = Array("&gt;".utf8)
    private static let quote = Array("&quot;".utf8)
    private static let apostrophe = Array("&apos;".utf8)
    private static let tab = Array("&#9;".utf8)
    private static let lineFeed = Array("&#10;".utf8)
    private static let carriageReturn = Array("&#13;".utf8)
    /// U+FFFD REPLACEMENT CHARACTER.
    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
}
