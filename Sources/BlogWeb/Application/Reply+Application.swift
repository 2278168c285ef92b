import HTTPTypes
import NIOCore

extension PublicFolderHandler.Reply {
    /// A short plain-text answer (a refusal the application never saw).
    init(status: HTTPResponse.Status, text: String, extra: HTTPFields = [:]) {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .contentLength: String(text.utf8.count)]
        headers.append(contentsOf: extra)
        self.init(status: status, headers: headers, body: ByteBuffer(string: text))
    }

    /// An application's answer, with its length; a HEAD gets no body.
    init(_ response: WebResponse, withBody: Bool) {
        var headers = response.headers
        headers[.contentLength] = String(response.body.count)
        self.init(status: response.status, headers: headers,
                  body: withBody ? ByteBuffer(bytes: response.body) : ByteBuffer())
    }
}
