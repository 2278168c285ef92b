import Dispatch
import Foundation
import NIOCore
import NIOHTTP1

/// One connection to one host of the farm: reads each request whole and
/// hands it to the farm's state, which says what to answer and when.
final class FarmHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Past this a body is cut off and the request refused (413).
    static let maxBody = 1 << 20

    let host: Int
    let state: FarmState
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    private var request: UInt64?
    /// Every POST this connection began: when it closes, none is under way.
    private var begun: [UInt64] = []

    init(host: Int, state: FarmState) {
        self.host = host
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            tooLarge = false
            if head.method == .POST {
                let id = state.began(host: host)
                request = id
                begun.append(id)
            }
        case .body(let buffer):
            if body.count + buffer.readableBytes <= Self.maxBody {
                body.append(contentsOf: buffer.readableBytesView)
            } else {
                tooLarge = true
            }
        case .end:
            guard let head else { return }
            self.head = nil
            finish(head, channel: context.channel, eventLoop: context.eventLoop)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for id in begun { state.ended(id) }
        begun = []
        context.fireChannelInactive()
    }

    private func finish(_ head: HTTPRequestHead, channel: any Channel, eventLoop: any EventLoop) {
        guard head.method == .POST, let id = request else {
            answerGet(head, channel: channel)
            return
        }
        request = nil
        if tooLarge {
            state.answered(host: host, id: id, status: 413)
            FarmState.respond(channel, status: 413)
            return
        }
        let seen = FarmRequest(method: head.method.rawValue, path: head.uri,
                               headers: head.headers.map { ($0.name, $0.value) }, body: body,
                               arrived: DispatchTime.now().uptimeNanoseconds)
        body = []
        let (host, state) = (self.host, self.state)
        switch state.arrived(host: host, id: id, channel: channel, request: seen) {
        case .answer(let status, let after) where after > 0:
            eventLoop.scheduleTask(in: .nanoseconds(Int64(after * 1e9))) {
                state.answered(host: host, id: id, status: status)
                FarmState.respond(channel, status: status)
            }
        case .answer(let status, _):
            // Counted before it is sent: a client that has the answer
            // finds it in the totals.
            state.answered(host: host, id: id, status: status)
            FarmState.respond(channel, status: status)
        case .hold, .silence:
            break
        }
    }

    /// `GET /users/NAME`: a minimal actor naming its inbox and the shared
    /// one; anything else 404.
    private func answerGet(_ head: HTTPRequestHead, channel: any Channel) {
        let path = head.uri.split(separator: "?").first.map(String.init) ?? ""
        let parts = path.split(separator: "/")
        guard head.method == .GET, parts.count == 2, parts[0] == "users", state.hosts.indices.contains(host) else {
            FarmState.respond(channel, status: 404)
            return
        }
        let server = state.hosts[host]
        let name = String(parts[1])
        let actor: [String: Any] = [
            "@context": "https://www.w3.org/ns/activitystreams", "type": "Person", "id": server.actor(name),
            "preferredUsername": name, "inbox": server.inbox(name), "endpoints": ["sharedInbox": server.sharedInbox],
        ]
        let body = (try? JSONSerialization.data(withJSONObject: actor, options: [.sortedKeys])).map { Array($0) } ?? []
        FarmState.respond(channel, status: 200, body: body, type: "application/activity+json")
    }
}
