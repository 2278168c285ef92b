import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import BlogWeb

/// A client that pipelines requests and never reads the answers makes the
/// channel unwritable: the responder then holds the next request instead
/// of queueing its answer, so what one connection makes the server buffer
/// stays bounded. (A redirecting responder answers at once, on the loop:
/// no file is read, so the test needs no thread.)
@Suite
struct PageResponderHoldTests {
    func channel() throws -> EmbeddedChannel {
        let folder = try TempFolder()
        let responder = PageResponder(files: PublicFolderHandler(folder: folder.public), accessLog: nil,
                                      pending: PendingCount(), logger: Logger(label: "test"),
                                      redirect: HTTPSRedirect.Target(port: 8443, host: "blog.example"))
        let channel = EmbeddedChannel(handler: responder)
        // Connected, as a real client's channel is: a closed one gets no answer.
        try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    func request(_ uri: String) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: ["host": "x"]))
    }

    @Test func aRequestWaitsWhileTheClientReadsNothing() throws {
        let channel = try channel()
        defer { _ = try? channel.finish() }
        try channel.writeInbound(request("/a.html"))
        guard case .head(let first) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            Issue.record("no answer while writable")
            return
        }
        #expect(first.status == .movedPermanently)
        #expect(first.headers["location"] == ["https://blog.example:8443/a.html"])
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}

        channel.isWritable = false
        try channel.writeInbound(request("/b.html"))
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil, "answered into a full buffer")

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        guard case .head(let second) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            Issue.record("the held request was not answered")
            return
        }
        #expect(second.headers["location"] == ["https://blog.example:8443/b.html"])
    }

    @Test func absoluteFormTargetsKeepTheirPathAndQuery() {
        #expect(HTTPSRedirect.target("http://evil.example?/x") == "/?/x")
        #expect(HTTPSRedirect.target("http://h/a/b.html?q=1") == "/a/b.html?q=1")
        #expect(HTTPSRedirect.target("http://h") == "/")
        #expect(HTTPSRedirect.target("http://h//evil.example/x") == "/")
        #expect(HTTPSRedirect.target("/plain?x") == "/plain?x")
        #expect(HTTPSRedirect.target("//evil.example/x") == "/")
    }
}
