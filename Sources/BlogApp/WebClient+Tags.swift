import BlogModel

/// The post form's tags field: tags besides the text's hashtags.
extension WebClient {
    /// The most bytes the field takes (20 tags of 64 characters fit in it
    /// with room to spare; the form's whole body is bounded anyway).
    static let maxTagsField = 2_000

    /// The field's words as tags (`Hashtags.parseList`): a word that is no
    /// tag, too many tags or too long a field is named back to the author.
    static func checkedTags(_ text: String) -> Result<[String], FormProblem> {
        guard text.utf8.count <= maxTagsField else {
            return .failure(FormProblem("The tags are too long: at most \(maxTagsField) bytes."))
        }
        let (tags, rejected) = Hashtags.parseList(text)
        if let word = rejected.first {
            return .failure(FormProblem("“\(word.prefix(40))” is not a tag: 1 to \(Hashtags.maxLength) letters, "
                                        + "digits, _ or -, with a letter."))
        }
        guard tags.count <= Hashtags.maxPerPost else {
            return .failure(FormProblem("At most \(Hashtags.maxPerPost) tags a post."))
        }
        return .success(tags)
    }
}
