import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Reads one response on its request's event loop, within the byte cap,
/// and ends it against the fetch's time limit there too
/// (`FetchDeadline`): the answer that has ended first is taken.
///
/// Every call comes on the loop of the request (`delegateAndChannel`), so
/// its state is the loop's alone.
final class CappedResponse: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = FetchedResponse

    private let url: String
    private let maxBytes: Int
    private let deadline: FetchDeadline
    private var head: HTTPResponseHead?
    private var bytes: [UInt8] = []

    init(url: String, maxBytes: Int, deadline: FetchDeadline) {
        self.url = url
        self.maxBytes = maxBytes
        self.deadline = deadline
    }

    func didReceiveHead(task: HTTPClient.Task<FetchedResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > maxBytes {
            return task.eventLoop.makeFailedFuture(FetchError.tooLarge(limit: maxBytes))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<FetchedResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        // Failing here drops the rest: the client closes the connection
        // rather than read it.
        guard bytes.count + buffer.readableBytes <= maxBytes else {
            return task.eventLoop.makeFailedFuture(FetchError.tooLarge(limit: maxBytes))
        }
        bytes.append(contentsOf: buffer.readableBytesView)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<FetchedResponse>) throws -> FetchedResponse {
        guard deadline.answered() else { throw FetchError.timedOut }
        guard let head else { throw FetchError.transport(HTTPClientError.remoteConnectionClosed) }
        var fields: [String: String] = [:]
        for header in head.headers {
            let name = header.name.lowercased()
            fields[name] = fields[name].map { "\($0), \(header.value)" } ?? header.value
        }
        return FetchedResponse(url: url, status: Int(head.status.code), headers: fields, body: bytes)
    }
}
