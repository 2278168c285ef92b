/// NodeInfo (2.0 and 2.1): what software serves the site and how big it
/// is, as fediverse crawlers and servers read it. `/.well-known/nodeinfo`
/// points to the documents (`links`).
///
///     NodeInfoDocument(version: "0.17.0", users: 3, localPosts: 40, openRegistrations: true).document(schema: "2.1")
public struct NodeInfoDocument: Sendable, Equatable {
    /// blogd's version.
    public var version: String
    public var users: Int
    public var localPosts: Int
    public var openRegistrations: Bool

    /// The schema versions served, newest first.
    public static let schemas = ["2.1", "2.0"]
    /// Where the document of `schema` is, relative to the site's root.
    public static func path(schema: String) -> String { "nodeinfo/" + schema }
    /// The document's type, as the schema's `rel` names it.
    public static func profile(schema: String) -> String { "http://nodeinfo.diaspora.software/ns/schema/" + schema }

    public init(version: String, users: Int, localPosts: Int, openRegistrations: Bool) {
        self.version = version
        self.users = users
        self.localPosts = localPosts
        self.openRegistrations = openRegistrations
    }

    /// The well-known document: a link to each schema's document.
    public static func links(urls: ActivityURLs) -> ActivityJSON {
        .object([("links", .array(schemas.map { schema in
            .object([("rel", .string(profile(schema: schema))), ("href", .string(urls.file(path(schema: schema))))])
        }))])
    }

    /// The document of `schema` (one of `schemas`).
    public func document(schema: String) -> ActivityJSON {
        .object([
            ("version", .string(schema)),
            ("software", .object([("name", "blogd"), ("version", .string(version))])),
            ("protocols", .array(["activitypub"])),
            ("services", .object([("inbound", .array([])), ("outbound", .array(["atom1.0"]))])),
            ("openRegistrations", .bool(openRegistrations)),
            ("usage", .object([("users", .object([("total", .int(users))])), ("localPosts", .int(localPosts))])),
            ("metadata", .object([])),
        ])
    }
}
