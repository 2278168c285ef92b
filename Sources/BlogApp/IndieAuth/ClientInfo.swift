/// What the authorization page shows of an app, and the redirect URIs it
/// publishes beyond its own origin.
public struct ClientInfo: Sendable, Equatable {
    /// The app's name, as shown to the user (never trusted as markup).
    public var name: String
    /// Its home page, when it published one.
    public var url: String?
    /// Redirect URIs the client published (its metadata's
    /// `redirect_uris`, or `<link rel="redirect_uri">` on its page): these
    /// may be on another origin than the client's own.
    public var redirectURIs: [String]

    public init(name: String, url: String? = nil, redirectURIs: [String] = []) {
        self.name = name
        self.url = url
        self.redirectURIs = redirectURIs
    }

    /// What is known of a client without asking it: its host for a name.
    public static func hostOnly(_ clientID: ClientID) -> ClientInfo {
        ClientInfo(name: clientID.host)
    }
}

/// Where the authorization page learns about an app. Answering nil means
/// "nothing known" and the page falls back to the host
/// (`ClientInfo.hostOnly`). A source that fetches the client's page or
/// metadata document must bound its fetch (size, time, no private
/// addresses): it runs while the user waits for the page.
public protocol ClientInfoSource: Sendable {
    func clientInfo(for clientID: ClientID) -> ClientInfo?
}

/// Asks nobody: every app is known by its host.
public struct HostOnlyClientInfo: ClientInfoSource {
    public init() {}
    public func clientInfo(for clientID: ClientID) -> ClientInfo? { nil }
}
