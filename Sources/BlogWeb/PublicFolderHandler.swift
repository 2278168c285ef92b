import Foundation
import HTTPTypes
import NIOCore

/// What the web server answers: the files of the public folder, read-only.
///
/// Only plain names in the folder itself are served (`alice.html`,
/// `alice.2.html`, `style.css`, `index.html`): no sub-paths, no `..`, no
/// percent-encoding, no hidden files (the pages' temporary files start with
/// a dot). The decision is `route(method:path:)`, a pure function; `reply`
/// adds the file's bytes. Every file carries an `ETag` and `Last-Modified`,
/// and a GET naming the version the client has gets `304 Not Modified`.
/// With a `health` check, `/healthz` answers 200 when it passes and 503
/// when not, for a load balancer.
///
///     let files = PublicFolderHandler(folder: URL(fileURLWithPath: "public"))
///     let reply = await files.reply(method: .get, path: "/alice.html")
///     print(reply.status.code)   // 200, or 404 when there is no such page
public struct PublicFolderHandler: Sendable {
    public let folder: URL
    /// A file's bytes and the version they are.
    struct FileContent: Sendable {
        var bytes: ByteBuffer
        var version: FileVersion
    }

    /// Reads a whole file, `nil` when it cannot (missing, a folder, ...).
    let read: @Sendable (_ path: String) async -> FileContent?
    /// Whether the server can serve (its database answers), or nil for no
    /// health endpoint.
    let health: (@Sendable () async -> Bool)?
    /// gzips a file's body (`ContentCoding.gzip`), where the caller wants
    /// the work done.
    let compress: @Sendable (_ file: FileContent, _ path: String) async -> ByteBuffer?

    /// Reads files on the calling thread (fine for tests and tools; the
    /// web server passes a reader that runs on a thread of its own).
    public init(folder: URL, health: (@Sendable () async -> Bool)? = nil) {
        self.init(folder: folder, read: { Self.readFile(atPath: $0) }, compress: { file, _ in ContentCoding.gzip(file.bytes) },
                  health: health)
    }

    init(folder: URL, read: @escaping @Sendable (_ path: String) async -> FileContent?,
         compress: @escaping @Sendable (_ file: FileContent, _ path: String) async -> ByteBuffer?,
         health: (@Sendable () async -> Bool)? = nil) {
        self.folder = folder
        self.read = read
        self.compress = compress
        self.health = health
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

    static let contentTypes = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
    ]

    static let nosniff = HTTPField.Name("X-Content-Type-Options")!

    /// The answer to `method` on `path` (the request target as sent, before
    /// any decoding, without the query), given the request's `fields`
    /// (`If-None-Match`, `If-Modified-Since`).
    public func reply(method: HTTPRequest.Method, path: String, fields: HTTPFields = [:]) async -> Reply {
        switch Self.route(method: method, path: path, health: health != nil) {
        case .health(let withBody):
            let healthy = await health?() ?? false
            var reply = healthy ? Self.plain(.ok, "ok\n") : Self.plain(.serviceUnavailable, "unavailable\n")
            reply.headers[.cacheControl] = "no-store"
            if !withBody { reply.body = ByteBuffer() }
            return reply
        case .methodNotAllowed:
            return Self.plain(.methodNotAllowed, "read-only: GET and HEAD only\n", extra: [.allow: "GET, HEAD"])
        case .notFound:
            return Self.plain(.notFound, "not found\n")
        case .file(let name, let contentType, let withBody):
            let path = folder.appendingPathComponent(name).path
            guard let file = await read(path) else {
                return Self.plain(.notFound, "not found\n")
            }
            let gzip = ContentCoding.acceptsGzip(fields[.acceptEncoding])
                && file.bytes.readableBytes >= ContentCoding.minimumBytes
            // no-cache: a reader may keep a page, but asks each time
            // whether it is still the current one. The gzipped body is
            // another representation: its tag is weak, as nginx makes it.
            var validators: HTTPFields = [
                .eTag: gzip ? "W/" + file.version.etag : file.version.etag,
                .lastModified: file.version.lastModified,
                .cacheControl: "no-cache",
                .vary: "Accept-Encoding",
            ]
            if file.version.isCurrent(ifNoneMatch: fields[.ifNoneMatch], ifModifiedSince: fields[.ifModifiedSince]) {
                return Reply(status: .notModified, headers: validators, body: ByteBuffer())
            }
            var body = file.bytes
            var headers: HTTPFields = [.contentType: contentType]
            if gzip, let packed = await compress(file, path) {
                body = packed
                headers[.contentEncoding] = "gzip"
            } else {
                validators[.eTag] = file.version.etag
            }
            headers[.contentLength] = String(body.readableBytes)
            headers[Self.nosniff] = "nosniff"
            headers.append(contentsOf: validators)
            return Reply(status: .ok, headers: headers, body: withBody ? body : ByteBuffer())
        }
    }

    /// Where `method` on `path` goes; no file is touched.
    static func route(method: HTTPRequest.Method, path: String, health: Bool = false) -> Route {
        guard method == .get || method == .head else { return .methodNotAllowed }
        if health && path == healthPath { return .health(withBody: method == .get) }
        guard let name = fileName(for: path),
              let type = contentTypes[(name as NSString).pathExtension.lowercased()]
        else { return .notFound }
        return .file(name: name, contentType: type, withBody: method == .get)
    }

    /// The file a request path names, or `nil` when it is not a plain,
    /// visible file name of the folder. `/` is the index.
    static func fileName(for path: String) -> String? {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        let name = trimmed.isEmpty ? "index.html" : trimmed
        guard let first = name.unicodeScalars.first, first != ".",
              name.unicodeScalars.allSatisfy({ scalar in
                  ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                      || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_" || scalar == "-"
              }),
              !name.contains("..")
        else { return nil }
        return name
    }

    /// The whole file at `path` and its version, both from one open file
    /// (a page replaced meanwhile is read whole, old or new); `nil` for a
    /// folder or anything unreadable.
    static func readFile(atPath path: String) -> FileContent? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              let data = try? handle.readToEnd() ?? Data() else { return nil }
        var version = FileVersion(info)
        version.size = data.count
        return FileContent(bytes: ByteBuffer(bytes: data), version: version)
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String, extra: HTTPFields = [:]) -> Reply {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .contentLength: String(text.utf8.count)]
        headers.append(contentsOf: extra)
        return Reply(status: status, headers: headers, body: ByteBuffer(string: text))
    }
}
