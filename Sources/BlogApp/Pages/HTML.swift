import BlogPages

/// A page being written: markup as given, user text always escaped.
///
///     var html = HTML()
///     html.raw("<p>Hello, ")
///     html.text(user.name)      // `<script>` arrives as `&lt;script&gt;`
///     html.raw("</p>")
struct HTML {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(4096)
    }

    /// Markup of our own, never user text.
    mutating func raw(_ markup: String) {
        bytes.append(contentsOf: markup.utf8)
    }

    /// Text, escaped for element content and quoted attribute values.
    mutating func text(_ value: some StringProtocol) {
        HTMLEscape.append(value, to: &bytes)
    }

    /// Text whose line breaks become `<br>`.
    mutating func multiline(_ value: some StringProtocol) {
        HTMLEscape.appendMultiline(value, to: &bytes)
    }
}
