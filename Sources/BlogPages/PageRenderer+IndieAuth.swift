extension PageRenderer {
    /// Paths of the IndieAuth endpoints under the base URL (the page
    /// server's `IndieAuthServer` answers there).
    public static let indieAuthMetadataPath = ".well-known/oauth-authorization-server"
    public static let authorizationEndpointPath = "app/auth"
    public static let tokenEndpointPath = "indieauth/token"

    /// What a page's head says of the site's IndieAuth server (IndieAuth
    /// 2022, section 4.1: `rel="indieauth-metadata"`; and the older
    /// `authorization_endpoint` and `token_endpoint` links, which many
    /// apps still look for), so that an app given the blog's address finds
    /// where to sign in; nothing when `baseURL` is nil (no web client).
    /// Absolute URLs: an app resolves them against the profile URL, which
    /// may differ from a post page's.
    public static func indieAuthLinks(_ baseURL: String?) -> [UInt8] {
        guard let baseURL else { return [] }
        let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        var out: [UInt8] = []
        for (rel, path) in [("indieauth-metadata", indieAuthMetadataPath), ("authorization_endpoint", authorizationEndpointPath),
                            ("token_endpoint", tokenEndpointPath)] {
            out += Array("<link rel=\"\(rel)\" href=\"".utf8)
            HTMLEscape.append(base + path, to: &out)
            out += Array("\">\n".utf8)
        }
        return out
    }
}
