import BlogCore
import Foundation

/// The `webmention` target: Webmention endpoint discovery on a target's
/// answer, the first line of the input as its `Link` header and the rest
/// as its HTML. Whatever the page says, the endpoint found is an absolute
/// http(s) URL with a host and no fragment, or none.
func checkWebmentionDiscovery(_ data: [UInt8]) {
    let newline = data.firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
    let link = String(decoding: data[..<newline], as: UTF8.self)
    let body = Array(data[min(newline + 1, data.endIndex)...])
    let answer = HTTPAnswer(url: "https://target.example/post/1?x=y", status: 200,
                            headers: ["Content-Type": "text/html", "Link": link], body: body)
    guard let endpoint = WebmentionDiscovery.endpoint(in: answer) else { return }
    let url = URL(string: endpoint)
    let scheme = url?.scheme?.lowercased()
    precondition(scheme == "http" || scheme == "https", "endpoint \(endpoint) is not http(s)")
    precondition(url?.host != nil, "endpoint \(endpoint) has no host")
    precondition(!endpoint.contains("#"), "endpoint \(endpoint) keeps a fragment")
}
