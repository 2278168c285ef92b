import BlogModel

/// Micropub's `category`: a post's tags given beside its text
/// (`Hashtags`). The text's hashtags are tags whatever `category` says.
extension Micropub {
    /// `values` as tags (normalized), each once; a value that is not a
    /// tag (a URL, a word with spaces or punctuation) is refused, and so
    /// is a list longer than a post keeps.
    static func checkedCategories(_ values: [String]) throws(MicropubError) -> [String] {
        var tags: [String] = []
        for value in values {
            guard let tag = Hashtags.normalized(value) else {
                throw .invalidRequest("category \"\(value.prefix(40))\" is not a tag: 1 to \(Hashtags.maxLength) "
                                      + "letters, digits, _ or -, with a letter.")
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        guard tags.count <= Hashtags.maxPerPost else {
            throw .invalidRequest("At most \(Hashtags.maxPerPost) categories a post.")
        }
        return tags
    }

    /// The categories an update leaves the post with (nil when it names
    /// none): `delete` of the property or of some values, `replace`,
    /// then `add`. A hashtag in the text stays a tag, whatever is deleted.
    func editedCategories(_ post: PostRecord, _ update: MicropubUpdate) throws(MicropubError) -> [String]? {
        let removed = update.removeValues["category"]
        guard update.removeProperties.contains("category") || removed != nil || update.replace["category"] != nil
                || update.add["category"] != nil else { return nil }
        var categories = post.categories
        if update.removeProperties.contains("category") { categories = [] }
        if let removed {
            let gone = Set(removed.compactMap(Hashtags.normalized))
            categories.removeAll { gone.contains($0) }
        }
        if let replaced = update.replace["category"] { categories = try Self.checkedCategories(replaced) }
        return try Self.checkedCategories(categories + (update.add["category"] ?? []))
    }

    /// The most tags `q=category` lists.
    static let listedCategories = 200

    /// `q=category` (Micropub's extension, which apps use to suggest
    /// tags): the blog's tags, in order, those beginning with `filter`
    /// when given, at most `listedCategories`.
    func categories(of user: UserRecord, filter: String) throws(MicropubError) -> [String] {
        let prefix = filter.hasPrefix("#") ? String(filter.dropFirst()).lowercased() : filter.lowercased()
        guard prefix.utf8.count <= Hashtags.maxLength * 4 else { throw .invalidRequest("The filter is too long.") }
        do {
            return try backend.storage.tags(ofUserID: user.id, prefix: prefix, limit: Self.listedCategories)
        } catch {
            throw .unavailable
        }
    }
}
