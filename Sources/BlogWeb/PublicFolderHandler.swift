import FlyingFox
import Foundation

/// Serves the files of the public folder, read-only.
///
/// Only plain names in the folder itself are served (`alice.html`,
/// `alice.2.html`, `style.css`, `index.html`): no sub-paths, no `..`, no
/// hidden files (the pages' temporary files start with a dot). FlyingFox's
/// own directory handler joins the request path onto the folder, so this
/// stricter one stands in front of the files.
public struct PublicFolderHandler: HTTPHandler {
    public let folder: URL

    static let contentTypes = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
    ]

    public init(folder: URL) {
        self.folder = folder
    }

    public func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.method == .GET || request.method == .HEAD else {
            return Self.plain(.methodNotAllowed, "read-only: GET and HEAD only\n", extra: [HTTPHeader("Allow"): "GET, HEAD"])
        }
        guard let name = Self.fileName(for: request.path),
              let type = Self.contentTypes[(name as NSString).pathExtension.lowercased()],
              let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
        else {
            return Self.plain(.notFound, "not found\n")
        }
        var headers: HTTPHeaders = [
            .contentType: type,
            .cacheControl: "no-cache",
            HTTPHeader("X-Content-Type-Options"): "nosniff",
        ]
        guard request.method == .GET else {
            // HEAD: the length GET would send, and no body.
            headers[.contentLength] = String(data.count)
            return HTTPResponse(statusCode: .ok, headers: headers, body: Data())
        }
        return HTTPResponse(statusCode: .ok, headers: headers, body: data)
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

    private static func plain(_ status: HTTPStatusCode, _ text: String, extra: HTTPHeaders = [:]) -> HTTPResponse {
        var headers: HTTPHeaders = [.contentType: "text/plain; charset=utf-8"]
        for (key, value) in extra { headers[key] = value }
        return HTTPResponse(statusCode: status, headers: headers, body: Data(text.utf8))
    }
}
