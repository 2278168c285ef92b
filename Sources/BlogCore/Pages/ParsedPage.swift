/// What a page file holds, read back: its post lines and ids, in page
/// order, and which archive page it links to.
public struct ParsedPage: Equatable, Sendable {
    static let postPrefix = "<article class=\"post\" id=\"post-"

    public var postLines: [String]
    public var postIDs: [Int64]
    /// The archive page the "Older posts" link points to, if any.
    public var olderArchive: Int?

    /// Parses a page of `user`; `nil` when the text is not a whole page
    /// (cut short, no heading line, a post line without an id).
    public init?(_ text: String, user: String) {
        guard text.hasPrefix("<!DOCTYPE html>"), text.hasSuffix("</html>\n") else { return nil }
        var sawHeading = false
        postLines = []
        postIDs = []
        olderArchive = nil
        let olderLink = "<a href=\"\(user)."
        let olderText = "\">Older posts</a>"
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(Self.postPrefix) {
                let rest = line.dropFirst(Self.postPrefix.count)
                guard sawHeading, let id = Int64(rest.prefix { $0 != "\"" }) else { return nil }
                postLines.append(String(line))
                postIDs.append(id)
            } else if line.contains(PageRenderer.headingMarker) {
                sawHeading = true
            } else if line.hasPrefix("<nav class=\"archive\">") {
                // Archive pages also link to the newest page: read only the
                // "Older posts" link, `<a href="NAME.K.html">Older posts</a>`.
                for link in line.ranges(of: olderLink) {
                    let number = line[link.upperBound...].prefix { $0.isNumber }
                    if line[link.upperBound...].dropFirst(number.count).hasPrefix(".html" + olderText) {
                        olderArchive = Int(number)
                    }
                }
            }
        }
        guard sawHeading else { return nil }
    }
}
