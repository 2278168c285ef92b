import BlogCore
import BlogPages
import Logging

/// The blog a request's outgoing GETs are signed as: set by the inbox
/// around its signature check, read by `BlogSignedHTTP`. A task-local,
/// so the key fetcher's own task inherits it.
enum SigningBlog {
    @TaskLocal static var name: String?
}

/// An `OutgoingHTTP` whose GETs are signed as `SigningBlog.name` (when
/// set): servers that keep their actors private (bovine, Mastodon's secure
/// mode) answer only a signed GET. POSTs pass through.
struct BlogSignedHTTP: OutgoingHTTP {
    let base: any OutgoingHTTP
    let keys: BlogKeys
    let urls: ActivityURLs
    var logger = Logger(label: "blogd.activitypub.fetch")

    func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        var signed = headers
        if let name = SigningBlog.name {
            do {
                if let (_, pair) = try keys.pair(ofBlog: name) {
                    signed += try SignatureSigner.sign(method: "GET", url: url, body: nil, keyID: urls.key(name), pair: pair)
                }
            } catch {
                logger.warning("signed GET without a signature", metadata: ["url": "\(url)", "error": "\(error)"])
            }
        }
        return try await base.get(url, headers: signed, maxBytes: maxBytes)
    }

    func postForm(_ url: String, fields: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        try await base.postForm(url, fields: fields, maxBytes: maxBytes)
    }

    func post(_ url: String, headers: [(String, String)], body: [UInt8], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        try await base.post(url, headers: headers, body: body, maxBytes: maxBytes)
    }
}
