import BlogCore
import BlogPages
import Logging

/// Who a request's outgoing GETs are signed as: set by the inbox around
/// its signature check, read by `BlogSignedHTTP`. A task-local, so the key
/// fetcher's own task inherits it.
enum SigningActor: Sendable, Equatable {
    /// The blog posted to (`/ap/NAME/inbox`), with its key.
    case blog(String)
    /// The site's own actor (`/ap/inbox`, the shared inbox), with its key.
    case instance

    @TaskLocal static var current: SigningActor?
}

/// An `OutgoingHTTP` whose GETs are signed as `SigningActor.current`
/// (when set): servers that keep their actors private (bovine, Mastodon's
/// "authorized fetch" mode) answer only a signed GET. POSTs pass through.
struct BlogSignedHTTP: OutgoingHTTP {
    let base: any OutgoingHTTP
    let keys: BlogKeys
    let instance: InstanceActorKey
    let urls: ActivityURLs
    var logger = Logger(label: "blogd.activitypub.fetch")

    func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        var signed = headers
        do {
            switch SigningActor.current {
            case .blog(let name):
                if let (_, pair) = try keys.pair(ofBlog: name) {
                    signed += try SignatureSigner.sign(method: "GET", url: url, body: nil, keyID: urls.key(name), pair: pair)
                }
            case .instance:
                signed += try SignatureSigner.sign(method: "GET", url: url, body: nil, keyID: urls.instanceKey,
                                                   pair: try instance.pair())
            case nil:
                break
            }
        } catch {
            logger.warning("signed GET without a signature", metadata: ["url": "\(url)", "error": "\(error)"])
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
