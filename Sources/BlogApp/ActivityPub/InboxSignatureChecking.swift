import BlogWeb

/// Checks an inbox request's HTTP signature (the `Signature`, `Digest`
/// and `Date` headers), fetching the signer's key within the outgoing
/// fetcher's bounds. The inbox asks it only after the body parsed, so a
/// body that is not an activity costs no fetch.
public protocol InboxSignatureChecking: Sendable {
    /// Who signed `request`, or why it is refused (`401`).
    func signer(of request: WebRequest) -> Result<InboxSigner, InboxSignatureRefusal>
}

/// The actor whose key signed a request, with what its actor document
/// says (the key fetch fetched it): where to deliver to it, what to call it.
public struct InboxSigner: Sendable, Equatable {
    /// The actor's id: the key's `owner`.
    public var actor: String
    public var inbox: String?
    public var sharedInbox: String?
    /// `name`, else `preferredUsername`.
    public var name: String?
    /// Its profile page (`url`).
    public var url: String?

    public init(actor: String, inbox: String? = nil, sharedInbox: String? = nil, name: String? = nil, url: String? = nil) {
        self.actor = actor
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.name = name
        self.url = url
    }
}

/// Why a signature was not accepted; the text goes into the `401`.
public struct InboxSignatureRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// Refused because the key could not be fetched for now (the signer's
    /// host is over its budget, or did not answer): `503` rather than `401`.
    public var isTemporary: Bool

    public init(_ description: String, isTemporary: Bool = false) {
        self.description = description
        self.isTemporary = isTemporary
    }
}
