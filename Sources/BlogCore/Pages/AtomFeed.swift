import Foundation

/// An Atom feed (RFC 4287) rendered straight into UTF-8 bytes.
/// (A first version; see the feed tests for what it must satisfy.)
public enum AtomFeed {
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var title: String
        public var author: String
        public var link: String
        public var content: String
        public var published: Date
        public var updated: Date

        public init(id: String, title: String, author: String, link: String, content: String, published: Date, updated: Date) {
            self.id = id
            self.title = title
            self.author = author
            self.link = link
            self.content = content
            self.published = published
            self.updated = updated
        }
    }

    public static func render(id: String, title: String, selfURL: String, alternateURL: String, updated: Date,
                              entries: [Entry]) -> [UInt8] {
        var out = Array("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n".utf8)
        func element(_ name: String, _ text: String, _ attributes: String = "") {
            out += Array("<\(name)\(attributes)>".utf8)
            HTMLEscape.append(text, to: &out)
            out += Array("</\(name)>\n".utf8)
        }
        func link(_ rel: String, _ type: String, _ href: String) {
            out += Array("<link rel=\"\(rel)\" type=\"\(type)\" href=\"".utf8)
            HTMLEscape.append(href, to: &out)
            out += Array("\"/>\n".utf8)
        }
        element("id", id)
        element("title", title, " type=\"text\"")
        element("updated", PostDate.machine(updated))
        link("self", "application/atom+xml", selfURL)
        link("alternate", "text/html", alternateURL)
        for entry in entries {
            out += Array("<entry>\n".utf8)
            element("id", entry.id)
            element("title", entry.title, " type=\"text\"")
            element("published", PostDate.machine(entry.published))
            element("updated", PostDate.machine(entry.updated))
            out += Array("<author><name>".utf8)
            HTMLEscape.append(entry.author, to: &out)
            out += Array("</name></author>\n".utf8)
            link("alternate", "text/html", entry.link)
            var html: [UInt8] = []
            HTMLEscape.appendMultiline(entry.content, to: &html)
            element("content", String(decoding: html, as: UTF8.self), " type=\"html\"")
            out += Array("</entry>\n".utf8)
        }
        out += Array("</feed>\n".utf8)
        return out
    }
}
