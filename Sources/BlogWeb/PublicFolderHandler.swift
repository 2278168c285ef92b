import Foundation
import HTTPTypes
import NIOCore

/// What the web server answers: the files of the public folder, read-only.
///
/// Files of the folder and of its sub-folders are served (`alice.html`,
/// `alice.2.html`, `style.css`, `index.html`, `alice/17.html`,
/// `alice/feed.atom`) by their plain names only: no `..`, no empty names,
/// no percent-encoding, no hidden files or folders (where page writes
/// cannot stage outside the folder, their temporary files start with a
/// dot), and no symbolic links below the folder
/// (`FolderFile`). The decision is `route(method:path:)`, a pure function;
/// `reply` adds the file's bytes. Every file carries an `ETag` and
/// `Last-Modified`, and a GET naming the version the client has gets
/// `304 Not Modified`. A deleted post's page (missing, with a tombstone
/// `NAME.gone` beside it) is `410 Gone`; the tombstone itself is never
/// served. With a `health` check, `/healthz` answers 200 when it passes
/// and 503 when not, for a load balancer.
///
///     let files = PublicFolderHandler(folder: URL(fileURLWithPath: "public"))
///     let reply = await files.reply(method: .get, path: "/alice.html")
///     print(reply.status.code)   // 200, or 404 when there is no such page
public struct PublicFolderHandler: Sendable {
    public let folder: URL
    /// Where the files come from.
    let files: any FileSource
    /// Whether the server can serve (its database answers), or nil for no
    /// health endpoint.
    let health: (@Sendable () async -> Bool)?
    /// What a page's reply carries besides the fields of every file: the
    /// Micropub endpoint's `Link`, when there is one.
    let pageFields: HTTPFields
    /// A page's `Vary`: `Accept` too when an application answers some
    /// pages' URLs with another representation (`WebApplication.negotiatesPages`).
    let pageVary: String

    /// Reads files on the calling thread (fine for tests and tools; the
    /// web server reads through its cache, on a thread of its own).
    /// `micropub`: the Micropub endpoint's URL, named in every page's
    /// reply (`Link: <URL>; rel="micropub"`, W3C Micropub 5.3).
    /// `webmention`: the Webmention endpoint's, likewise (W3C Webmention 3.1.2).
    public init(folder: URL, health: (@Sendable () async -> Bool)? = nil, micropub: String? = nil,
                webmention: String? = nil) {
        self.init(folder: folder, files: DiskFiles(folder: folder.path), health: health, micropub: micropub,
                  webmention: webmention)
    }

    init(folder: URL, files: any FileSource, health: (@Sendable () async -> Bool)? = nil, micropub: String? = nil,
         webmention: String? = nil, varyAccept: Bool = false) {
        self.folder = folder
        pageVary = varyAccept ? "Accept, Accept-Encoding" : Self.plainVary
        self.files = files
        self.health = health
        var fields: HTTPFields = [:]
        if let webmention { fields.append(HTTPField(name: HTTPField.Name("Link")!, value: "<\(webmention)>; rel=\"webmention\"")) }
        if let micropub { fields.append(HTTPField(name: HTTPField.Name("Link")!, value: "<\(micropub)>; rel=\"micropub\"")) }
        pageFields = fields
    }

    /// The health endpoint's path.
    public static let healthPath = "/healthz"

    /// A complete answer: status, header fields and body.
    public struct Reply: Sendable, Equatable {
        public var status: HTTPResponse.Status
        public var headers: HTTPFields
        /// Empty for HEAD, whose `Content-Length` is the one GET would send.
        public var body: ByteBuffer
    }

    /// Where a request goes, before any file is read.
    enum Route: Equatable {
        case file(name: String, contentType: String, withBody: Bool)
        case health(withBody: Bool)
        case notFound
        case methodNotAllowed
    }

    static let htmlType = "text/html; charset=utf-8"
    /// Every file's `Vary`: gzipped or not.
    static let plainVary = "Accept-Encoding"

    static let contentTypes = [
        "html": htmlType,
        "css": "text/css; charset=utf-8",
        "atom": "application/atom+xml; charset=utf-8",
        // The map pages' scripts (Leaflet, map.js) and Leaflet's icons.
        "js": "text/javascript; charset=utf-8",
        "png": "image/png",
        // Posts' photos and their thumbnails (`photos/NAME.jpg`).
        "jpg": "image/jpeg",
    ]

    /// A photo's name is random and its bytes never change under it (a
    /// deleted photo's name is never used again): readers may keep it.
    static let photoCacheControl = "public, max-age=31536000, immutable"

    /// Whether gzip can make a file of `contentType` smaller: a JPEG is
    /// compressed already, and gzipping it only costs CPU.
    static func compressible(_ contentType: String) -> Bool {
        contentType != "image/jpeg"
    }

    static let nosniff = HTTPField.Name("X-Content-Type-Options")!

    /// What a public page may load: its own folder's files (style.css,
    /// Leaflet and map.js beside the pages, photos) and OpenStreetMap's
    /// tiles on a map page; no inline script, no plug-in, no form. Post
    /// pages set `<base href="../">`: base-uri is 'self'.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "img-src 'self' data: https://tile.openstreetmap.org; base-uri 'self'; form-action 'none'; frame-ancestors 'none'"

    /// Every file's reply carries these (the web client's pages have
    /// their own, stricter set). The referrer goes as the origin alone to
    /// other sites: OpenStreetMap's tile policy asks for one.
    static let securityFields: HTTPFields = [
        nosniff: "nosniff",
        .contentSecurityPolicy: contentSecurityPolicy,
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Referrer-Policy")!: "strict-origin-when-cross-origin",
    ]

    /// The answer to `method` on `path` (the request target as sent, before
    /// any decoding, without the query), given the request's `fields`
    /// (`If-None-Match`, `If-Modified-Since`, `Accept-Encoding`).
    public func reply(method: HTTPRequest.Method, path: String, fields: HTTPFields = [:]) async -> Reply {
        let route = Self.route(method: method, path: path, health: health != nil)
        if let ready = immediateReply(route, fields: fields) { return ready }
        switch route {
        case .health(let withBody):
            let healthy = await health?() ?? false
            var reply = healthy ? Self.plain(.ok, "ok\n") : Self.plain(.serviceUnavailable, "unavailable\n")
            reply.headers[.cacheControl] = "no-store"
            if !withBody { reply.body = ByteBuffer() }
            return reply
        case .file(let name, let contentType, let withBody):
            var found: Lookup
            if let now = files.immediate(name) { found = now } else { found = await files.lookup(name) }
            guard case .file(let file) = found else { return Self.missing(found, withBody: withBody, varyAccept: pageVary != Self.plainVary) }
            var packed: ByteBuffer?
            if Self.wantsGzip(file, contentType: contentType, fields: fields) {
                packed = files.immediateGzip(file, name: name)
                if packed == nil { packed = await files.gzip(file, name: name) }
            }
            return Self.fileReply(file, contentType: contentType, withBody: withBody, fields: fields, gzipped: packed,
                                  pageFields: pageFields, pageVary: pageVary)
        case .methodNotAllowed, .notFound:
            preconditionFailure("answered at once")
        }
    }

    /// The answer to `method` on `path`, if it can be given without
    /// waiting: no health check, no file to read from disk or to compress
    /// (pages in memory, refusals); nil otherwise, for `reply` to give.
    func immediateReply(method: HTTPRequest.Method, path: String, fields: HTTPFields = [:]) -> Reply? {
        immediateReply(Self.route(method: method, path: path, health: health != nil), fields: fields)
    }

    private func immediateReply(_ route: Route, fields: HTTPFields) -> Reply? {
        switch route {
        case .health:
            return nil
        case .methodNotAllowed:
            return Self.plain(.methodNotAllowed, "read-only: GET and HEAD only\n", extra: [.allow: "GET, HEAD"])
        case .notFound:
            return Self.plain(.notFound, "not found\n")
        case .file(let name, let contentType, let withBody):
            guard let found = files.immediate(name) else { return nil }
            guard case .file(let file) = found else { return Self.missing(found, withBody: withBody, varyAccept: pageVary != Self.plainVary) }
            var packed: ByteBuffer?
            if Self.wantsGzip(file, contentType: contentType, fields: fields) {
                guard let kept = files.immediateGzip(file, name: name) else { return nil }
                packed = kept
            }
            return Self.fileReply(file, contentType: contentType, withBody: withBody, fields: fields, gzipped: packed,
                                  pageFields: pageFields, pageVary: pageVary)
        }
    }

    /// Whether the reply to a request with `fields` would send `file`
    /// gzipped: asked for, worth it, and not a 304.
    private static func wantsGzip(_ file: FileContent, contentType: String, fields: HTTPFields) -> Bool {
        compressible(contentType) && ContentCoding.acceptsGzip(fields[.acceptEncoding])
            && file.bytes.readableBytes >= ContentCoding.minimumBytes
            && !file.isCurrent(fields)
    }

    /// `file`'s reply, as it is or `gzipped` (when the client asked and
    /// compressing worked), or a 304 when the client has it.
    private static func fileReply(_ file: FileContent, contentType: String, withBody: Bool, fields: HTTPFields,
                                  gzipped: ByteBuffer?, pageFields: HTTPFields, pageVary: String) -> Reply {
        let notModified = file.isCurrent(fields)
        // The gzipped body is another representation: its tag is weak, as
        // nginx makes it; a 304 names the tag the client would get.
        let weak = notModified
            ? compressible(contentType) && ContentCoding.acceptsGzip(fields[.acceptEncoding])
                && file.bytes.readableBytes >= ContentCoding.minimumBytes
            : gzipped != nil
        // no-cache: a reader may keep a page, but asks each time whether it
        // is still the current one. A photo it may simply keep.
        let validators: HTTPFields = [
            .eTag: weak ? "W/" + file.etag : file.etag,
            .lastModified: file.lastModified,
            .cacheControl: contentType == "image/jpeg" ? photoCacheControl : "no-cache",
            .vary: contentType == htmlType ? pageVary : plainVary,
        ]
        if notModified {
            return Reply(status: .notModified, headers: validators, body: ByteBuffer())
        }
        var body = file.bytes
        var headers: HTTPFields = [.contentType: contentType]
        if let gzipped {
            body = gzipped
            headers[.contentEncoding] = "gzip"
        }
        headers[.contentLength] = String(body.readableBytes)
        headers.append(contentsOf: securityFields)
        if contentType == htmlType { headers.append(contentsOf: pageFields) }
        headers.append(contentsOf: validators)
        return Reply(status: .ok, headers: headers, body: withBody ? body : ByteBuffer())
    }

    /// The reply for a file that is not there: 410 for a deleted post's
    /// page, 404 for anything else.
    private static func missing(_ found: Lookup, withBody: Bool, varyAccept: Bool) -> Reply {
        guard case .gone = found else { return plain(.notFound, "not found\n") }
        let page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Gone</title></head>"
            + "<body><p>This post was deleted.</p></body></html>\n"
        var reply = Reply(status: .gone, headers: [.contentType: "text/html; charset=utf-8",
                                                   .contentLength: String(page.utf8.count)],
                          body: withBody ? ByteBuffer(string: page) : ByteBuffer())
        reply.headers.append(contentsOf: securityFields)
        // Its JSON answers 410 too, with a Tombstone.
        if varyAccept { reply.headers[.vary] = "Accept" }
        return reply
    }

    /// Where `method` on `path` goes; no file is touched.
    static func route(method: HTTPRequest.Method, path: String, health: Bool = false) -> Route {
        guard method == .get || method == .head else { return .methodNotAllowed }
        if health && path == healthPath { return .health(withBody: method == .get) }
        guard let name = fileName(for: path),
              let type = contentTypes[Self.fileExtension(of: name)] ?? siteFileType(name)
        else { return .notFound }
        return .file(name: name, contentType: type, withBody: method == .get)
    }

    /// The type of the site's own files at the top of the folder that
    /// have no page type: `robots.txt` and the sitemap (`sitemap.xml`,
    /// its parts `sitemap-N.xml`); nil for any other name, so no other
    /// text or XML file put in the folder is served.
    static func siteFileType(_ name: String) -> String? {
        if name == "robots.txt" { return "text/plain; charset=utf-8" }
        guard name.hasPrefix("sitemap"), name.hasSuffix(".xml") else { return nil }
        let middle = name.dropFirst("sitemap".count).dropLast(".xml".count)
        guard middle.isEmpty || (middle.first == "-" && middle.count > 1 && middle.dropFirst().allSatisfy(\.isASCII)
                                 && middle.dropFirst().allSatisfy(\.isNumber)) else { return nil }
        return "application/xml; charset=utf-8"
    }

    /// What follows the last dot of the last name in `path`, lowercased
    /// (`""` for none).
    static func fileExtension(of path: String) -> String {
        let utf8 = path.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")),
              !utf8[dot...].contains(UInt8(ascii: "/")) else { return "" }
        return String(path[path.index(after: dot)...]).lowercased()
    }

    /// The file a request path names, relative to the folder (`alice.html`,
    /// `alice/17.html`), or `nil` when it is not made of plain, visible
    /// names: letters, digits, `.`, `_` and `-`, none empty, none starting
    /// with a dot (so neither `..` nor hidden files). `/` is the index.
    static func fileName(for path: String) -> String? {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        let name = trimmed.isEmpty ? "index.html" : trimmed
        // One pass: each name starts with no dot (no hidden file) and is
        // not empty, no two dots follow each other, only plain bytes.
        var plain = true
        var atStart = true
        var previous: UInt8 = 0
        for byte in name.utf8 {
            defer { previous = byte }
            switch byte {
            case UInt8(ascii: "/"):
                // A name ends here: it must not be empty (`//`, a leading `/`).
                plain = plain && !atStart
                atStart = true
            case UInt8(ascii: "."):
                plain = plain && !atStart && previous != UInt8(ascii: ".")
                atStart = false
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"):
                atStart = false
            default:
                plain = false
            }
        }
        // (Byte by byte: Foundation's String.contains would do the `..`
        // check through NSString, a cost on every request.)
        plain = plain && !atStart
        guard plain else { return nil }
        return name
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String, extra: HTTPFields = [:]) -> Reply {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .contentLength: String(text.utf8.count)]
        headers.append(contentsOf: extra)
        return Reply(status: status, headers: headers, body: ByteBuffer(string: text))
    }
}
