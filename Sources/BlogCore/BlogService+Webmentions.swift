import Foundation
import BlogModel
import BlogPages

/// Why a Webmention was refused on receipt (W3C Webmention 3.2.1: `400`).
public enum WebmentionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    case badSource
    case badTarget
    case sameURL
    /// The target is not a post of this site.
    case notOurs
    case noSuchPost
    /// The blog's author has `BlogService.webmentionsWaitingLimit` waiting already.
    case tooManyWaiting
    case database

    public var description: String {
        switch self {
        case .badSource: "source must be an http or https URL"
        case .badTarget: "target must be an http or https URL"
        case .sameURL: "source and target must differ"
        case .notOurs: "target is not a post on this site"
        case .noSuchPost: "target names no post here"
        case .tooManyWaiting: "too many Webmentions are waiting for this blog's author; try again later"
        case .database: "the Webmention could not be stored; try again later"
        }
    }
}

/// Received Webmentions: accepted on receipt, verified in the background
/// (BlogApp's verifier), approved by the post's author, shown under the
/// post. Every change to what a post shows rewrites its page under the
/// blog's page lock, as edits do.
extension BlogService {
    /// Longest source or target URL accepted.
    public static let webmentionURLLimit = 2048
    /// Webmentions one blog may have waiting for approval: many addresses
    /// together cannot fill the database faster than its author reads.
    public static let webmentionsWaitingLimit = 1000

    /// Checks a Webmention and queues it for verification. `hosts`: the
    /// names the request reached this site by (its `Host`), besides the
    /// configured `base_url`'s.
    public func receiveWebmention(source: String, target: String, hosts: [String],
                                  at date: Date? = nil) -> Result<Webmention, WebmentionRefusal> {
        guard let sourceURL = Self.webURL(source) else { return .failure(.badSource) }
        guard let targetURL = Self.webURL(target) else { return .failure(.badTarget) }
        guard Self.withoutFragment(sourceURL) != Self.withoutFragment(targetURL) else { return .failure(.sameURL) }
        guard let (name, postID) = ourPost(targetURL, hosts: hosts) else { return .failure(.notOurs) }
        do {
            guard let owner = try storage.user(named: name), !owner.suspended,
                  let post = try storage.posts(ids: [postID]).first, post.userID == owner.id
            else { return .failure(.noSuchPost) }
            // At the limit a re-sent one waits too: the author reads first.
            guard try storage.unapprovedWebmentionCount(ofUserID: owner.id) < Self.webmentionsWaitingLimit else {
                return .failure(.tooManyWaiting)
            }
            return .success(try storage.queueWebmention(userID: owner.id, postID: postID, source: source, target: target,
                                                        at: date ?? now()))
        } catch .unknownUser {
            return .failure(.noSuchPost)
        } catch {
            logger.error("webmention not stored", metadata: ["source": "\(source)", "error": "\(error)"])
            return .failure(.database)
        }
    }

    /// Stores what verifying Webmention `id` found, and rewrites the post's
    /// page when it shows there.
    public func storeWebmentionVerification(id: Int64, content: WebmentionContent) throws {
        guard let stored = try storage.storeVerification(id: id, content: content, at: now()) else { return }
        if stored.approved { try writeResponses(of: stored) }
    }

    /// Approves Webmention `id` (of `userID`'s post, when given); nil when
    /// there is no such one.
    public func approveWebmention(id: Int64, ofUserID userID: Int64?) throws -> Webmention? {
        guard let approved = try storage.approveWebmention(id: id, ofUserID: userID) else { return nil }
        if approved.isShown { try writeResponses(of: approved) }
        return approved
    }

    /// Removes Webmention `id` (rejected by the author, or its source gone
    /// or no longer linking); nil when there is no such one.
    @discardableResult
    public func removeWebmention(id: Int64, ofUserID userID: Int64?) throws -> Webmention? {
        guard let removed = try storage.deleteWebmention(id: id, ofUserID: userID) else { return nil }
        if removed.isShown { try writeResponses(of: removed) }
        return removed
    }

    private func writeResponses(of mention: Webmention) throws {
        guard let owner = try storage.user(id: mention.userID) else { return }
        try storage.withPageLock(userID: owner.id) { try userPages.writeResponses(owner, postID: mention.postID) }
    }

    /// `NAME` and post id when `url` is a post page of this site
    /// (`BASE/NAME/ID.html`, on the base URL's host or one of `hosts`).
    func ourPost(_ url: URL, hosts: [String]) -> (String, Int64)? {
        guard let base = URL(string: settings.baseURL), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let basePort = base.port ?? (base.scheme?.lowercased() == "https" ? 443 : 80)
        let named = host == base.host?.lowercased() && port == basePort
        let reached = hosts.contains { Self.sameHost($0, host: host, port: port) }
        guard named || reached else { return nil }
        var basePath = base.path
        if !basePath.hasSuffix("/") { basePath += "/" }
        let path = url.path
        guard path.hasPrefix(basePath) else { return nil }
        let parts = path.dropFirst(basePath.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasSuffix(".html"),
              let id = Int64(parts[1].dropLast(5)), id > 0, !parts[0].isEmpty else { return nil }
        return (String(parts[0]), id)
    }

    /// Whether a `Host` header value names `host`:`port`.
    static func sameHost(_ header: String, host: String, port: Int) -> Bool {
        guard let parsed = URL(string: "http://\(header)"), let name = parsed.host?.lowercased() else { return false }
        let given = parsed.port ?? 80
        return name == host && (given == port || (parsed.port == nil && (port == 80 || port == 443)))
    }

    /// An absolute http(s) URL with a host, no user info, no white space,
    /// within the length limit.
    public static func webURL(_ text: String) -> URL? {
        guard !text.isEmpty, text.utf8.count <= webmentionURLLimit,
              !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }),
              let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else { return nil }
        return url
    }

    static func withoutFragment(_ url: URL) -> String {
        let text = url.absoluteString
        return String(text.prefix { $0 != "#" })
    }
}
