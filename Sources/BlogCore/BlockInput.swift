import BlogModel
import Foundation

/// What a person types to block or name an actor, checked once for every
/// door (the web client's form, `blogd block`): an actor is an `http` or
/// `https` URL with a host, as the inbox sees actors; a domain is a host
/// name (letters, digits, `-` and dots), never a URL, which covers its
/// subdomains.
public enum BlockInput {
    /// The longest actor URL kept (as the inbox's ids).
    public static let maxActorBytes = 2048
    /// The longest domain name (RFC 1035).
    public static let maxDomainBytes = 253

    /// `kind` `actor` or `domain` and its value, or why not.
    public static func target(kind: String, value: String) -> Result<BlockTarget, FollowerModerationError> {
        switch kind {
        case "actor": actor(value).map(BlockTarget.actor)
        case "domain": domain(value).map(BlockTarget.domain)
        default: .failure(.invalid("block an actor or a domain, not \"\(kind.prefix(20))\""))
        }
    }

    /// An actor's URL, trimmed, or why it is none.
    public static func actor(_ text: String) -> Result<String, FollowerModerationError> {
        let value = text.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { return .failure(.invalid("give the actor's URL (https://social.example/users/bob)")) }
        guard value.utf8.count <= maxActorBytes else {
            return .failure(.invalid("an actor's URL is at most \(maxActorBytes) bytes"))
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }),
              let parts = URLComponents(string: value), let scheme = parts.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty, parts.user == nil
        else { return .failure(.invalid("not an actor's URL: give an http or https URL (https://social.example/users/bob)")) }
        return .success(value)
    }

    /// A domain, lower case, without a trailing dot, or why it is none.
    public static func domain(_ text: String) -> Result<String, FollowerModerationError> {
        let value = ActorHost.normalizedDomain(text)
        guard !value.isEmpty else { return .failure(.invalid("give a domain (social.example)")) }
        if value.contains("://") || value.contains("/") || value.contains(":") || value.contains("@") {
            return .failure(.invalid("a domain is a host name, not a URL or an address: give social.example"))
        }
        guard value.utf8.count <= maxDomainBytes else {
            return .failure(.invalid("a domain is at most \(maxDomainBytes) characters"))
        }
        let labels = value.split(separator: ".", omittingEmptySubsequences: false)
        let valid = labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        }
        guard valid else {
            return .failure(.invalid("not a domain: letters, digits and - between dots (social.example; xn-- for others)"))
        }
        return .success(value)
    }
}
