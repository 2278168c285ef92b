import BlogCore
import BlogPages
import Logging

/// GETs of fediverse documents (a signer's key, a follower's actor),
/// signed with a blog's key: servers that keep their actors private
/// (bovine, Mastodon's secure mode) answer only a signed GET, and check
/// it by fetching our actor back. Through the bounded outgoing fetcher.
struct SignedGets: Sendable {
    static let accept = #"application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams""#

    let http: any OutgoingHTTP
    let keys: BlogKeys
    let urls: ActivityURLs
    /// How long a request's thread waits for the answer.
    var waitSeconds: Double = 10
    var maxBytes = 64 << 10
    var logger = Logger(label: "blogd.activitypub.fetch")

    /// `url`, signed as blog `name` when given (unsigned when the blog has
    /// no key to be had: the server may still answer).
    func get(_ url: String, asBlog name: String?) -> Result<HTTPAnswer, OutgoingHTTPError> {
        var headers = [("Accept", Self.accept)]
        if let name {
            do {
                if let (_, pair) = try keys.pair(ofBlog: name) {
                    headers += try SignatureSigner.sign(method: "GET", url: url, body: nil, keyID: urls.key(name), pair: pair)
                }
            } catch {
                logger.warning("signed GET without a signature", metadata: ["url": "\(url)", "error": "\(error)"])
            }
        }
        return http.getWaiting(url, headers: headers, maxBytes: maxBytes, within: waitSeconds)
    }
}
