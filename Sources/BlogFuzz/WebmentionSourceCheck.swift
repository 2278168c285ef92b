import BlogApp
import BlogModel
import Foundation

/// The `webmention` target: a source page as the verifier reads it. Every
/// field within its limit, author links only http(s), and a page that
/// does not hold the target's URL in any form never counts as linking.
func checkWebmentionSource(_ data: [UInt8]) {
    let html = String(decoding: data, as: UTF8.self)
    let target = "https://blog.example/alice/7.html"
    let reader = SourceReader(source: URL(string: "https://source.example/post/1")!, target: target)
    guard let content = reader.read(body: html, contentType: "text/html") else { return }
    precondition(content.text.count <= WebmentionContent.textLimit, "content over its limit")
    for field in [content.authorName, content.authorURL, content.authorPhoto, content.title] {
        precondition(field.count <= WebmentionContent.fieldLimit, "a field over its limit")
    }
    for link in [content.authorURL, content.authorPhoto] where !link.isEmpty {
        precondition(link.lowercased().hasPrefix("http://") || link.lowercased().hasPrefix("https://"), "a link not http(s): \(link)")
    }
    // A link to the target needs its path somewhere in the page, literally
    // or as character references (decoded here loosely: any "7.html").
    precondition(html.contains("7.html") || html.contains("&#") || html.contains("/alice/"),
                 "linked to the target with no trace of it")
}
