/// A post's title, by the rule of `FieldRules.title`: 1 to 200 characters,
/// not only whitespace, on one line. A value of this type is valid, so a
/// door that holds one has nothing left to check.
///
///     let title = try Title("Hello")   // throws FieldError.emptyTitle for "  "
public struct Title: Sendable, Hashable {
    public let value: String

    public init(_ text: String) throws(FieldError) {
        value = try FieldRules.title(text)
    }
}

/// A post's text, by the rule of `FieldRules.content` and the configured
/// `max_message_bytes`: no control characters but tabs and line breaks,
/// at most `maxBytes` bytes of UTF-8. Every door (the blog port, whose
/// frame holds the whole message to that limit, the web client, Micropub)
/// holds a post to the same two rules.
///
///     let text = try PostText(body, maxBytes: config.maxMessageBytes)
public struct PostText: Sendable, Hashable {
    public let value: String

    public init(_ text: String, maxBytes: Int) throws(FieldError) {
        value = try FieldRules.content(text)
        guard text.utf8.count <= maxBytes else { throw .contentTooLong(maxBytes: maxBytes) }
    }

    /// The text of a blog-port message, whose frame the decoder held, whole,
    /// to `max_message_bytes` already (`FrameDecoder`).
    public init(framed text: String) throws(FieldError) {
        value = try FieldRules.content(text)
    }
}
