extension PageRenderer {
    /// Where the page server answers for IndieAuth (`IndieAuthServer`):
    /// the metadata, the authorization page, the token endpoint.
    public static let indieAuthMetadataPath = "/.well-known/oauth-authorization-server"
    public static let authorizationEndpointPath = "/app/auth"
    public static let tokenEndpointPath = "/indieauth/token"

    /// What a page's head says of the site's IndieAuth server (IndieAuth
    /// 2022, section 4.1: `rel="indieauth-metadata"`; and the older
    /// `authorization_endpoint` and `token_endpoint` links, which many
    /// apps still look for), so that an app given the blog's address finds
    /// where to sign in; nothing when `named` is false (no web client).
    /// Root-relative, as the endpoints are the page server's own: every
    /// instance writes the same pages whatever address it is reached at,
    /// a post page's `<base>` changes nothing, and an app resolves them
    /// against the page it fetched; the metadata has them absolute.
    public static func indieAuthLinks(_ named: Bool) -> [UInt8] {
        guard named else { return [] }
        var out: [UInt8] = []
        for (rel, path) in [("indieauth-metadata", indieAuthMetadataPath), ("authorization_endpoint", authorizationEndpointPath),
                            ("token_endpoint", tokenEndpointPath)] {
            out += Array("<link rel=\"\(rel)\" href=\"\(path)\">\n".utf8)
        }
        return out
    }
}
