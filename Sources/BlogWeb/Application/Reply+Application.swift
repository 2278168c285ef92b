import HTTPTypes
import NIOCore

extension PublicFolderHandler.Reply {
    /// An application's answer, with its length; a HEAD gets no body.
    init(_ response: WebResponse, withBody: Bool) {
        var headers = response.headers
        headers[.contentLength] = String(response.body.count)
        self.init(status: response.status, headers: headers,
                  body: withBody ? ByteBuffer(bytes: response.body) : ByteBuffer())
    }
}
