import BlogWire

/// What a blog's pages say of the blog itself: its user, the settings its
/// author gave (`BlogSettings`: title, description, display name, photo)
/// and where the site is served, for the absolute links of a post page's
/// head (`rel=canonical`, OpenGraph).
///
///     let blog = BlogIdentity(user: "alice", settings: settings, siteURL: "https://blog.example.org/")
///     blog.name          // settings.title ?? "alice"
public struct BlogIdentity: Sendable, Equatable {
    public var user: String
    public var settings: BlogSettings
    /// Where the public folder is served, ending with `/`; nil: the pages
    /// carry no absolute links (no canonical link, no `og:url`).
    public var siteURL: String?
    /// The page server serves the blog as an ActivityPub actor: its pages
    /// link to their JSON (`PageRenderer.actorLink`).
    public var activityPub: Bool

    public init(user: String, settings: BlogSettings = .unset, siteURL: String? = nil, activityPub: Bool = false) {
        self.user = user
        self.settings = settings
        self.siteURL = siteURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.activityPub = activityPub
    }

    /// The blog's name as its pages head it: its title, or its user's name.
    public var name: String { settings.title ?? user }

    /// The author's name: the display name, or the user's name.
    public var authorName: String { settings.authorName ?? user }

    /// `file`'s absolute URL, when the site's is known.
    func absolute(_ file: String) -> String? {
        siteURL.map { $0 + file }
    }
}

/// What a post's own page says of the post in its head: its title, and
/// (when known) its id for the canonical URL, a description of its text
/// and its first photo (`og:image`).
public struct PostMeta: Sendable, Equatable {
    public var title: String
    public var id: Int64?
    /// One line of the text's start (`PostMeta.summary`); empty: the title.
    public var description: String
    /// The first photo's image, relative to the public folder.
    public var image: String?

    public init(title: String, id: Int64? = nil, description: String = "", image: String? = nil) {
        self.title = title
        self.id = id
        self.description = description
        self.image = image
    }

    /// Characters of a post's text its description keeps at most.
    public static let summaryCharacters = 200

    /// The start of `text` as one line: runs of whitespace (line breaks,
    /// tabs) made one space, cut after at most `summaryCharacters`
    /// characters at a word's end, with `…` when cut. It reads no further
    /// than it keeps, so a long post costs no more than a short one.
    public static func summary(_ text: String) -> String {
        var out = ""
        var count = 0
        var pendingSpace = false
        var lastWordEnd: String.Index?
        var cut = false
        for character in text {
            if character.isWhitespace {
                if !out.isEmpty { pendingSpace = true }
                continue
            }
            if pendingSpace {
                // Cut between words: nothing to take back.
                if count + 1 >= summaryCharacters { return out + "…" }
                lastWordEnd = out.endIndex
                out.append(" ")
                count += 1
                pendingSpace = false
            }
            if count >= summaryCharacters { cut = true; break }
            out.append(character)
            count += 1
        }
        guard cut else { return out }
        // A word cut in two reads worse than one left out.
        if let lastWordEnd, out.distance(from: out.startIndex, to: lastWordEnd) > summaryCharacters / 2 {
            out = String(out[..<lastWordEnd])
        }
        return out + "…"
    }
}
