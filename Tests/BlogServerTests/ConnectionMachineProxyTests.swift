import BlogServer
import BlogWire
import Testing
import BlogLimits

/// The PROXY protocol in the connection's rules, without sockets: a trusted
/// proxy's header first, an untrusted peer's header refused, nothing
/// changed when the protocol is off.
@Suite("ConnectionMachine: PROXY protocol")
struct ConnectionMachineProxyTests {
    static let v1Line = bytes("PROXY TCP4 127.0.0.2 127.0.0.1 40000 51515\r\n")
    static let v1Header = ProxyHeader(version: .v1, source: .init(address: [127, 0, 0, 2], port: 40000),
                                      destination: .init(address: [127, 0, 0, 1], port: 51515))
    /// v2 LOCAL with UNSPEC: what HAProxy's `check-send-proxy` sends.
    static let v2Local = ProxyHeader.v2Signature + [0x20, 0x00, 0x00, 0x00]

    private func proxied(keepAlive: Bool = false) -> ConnectionMachine {
        var options = ConnectionMachine.Options()
        options.keepAlive = keepAlive
        options.readTimeout = 10
        options.lingerTimeout = 5
        options.refusalHold = .none
        var machine = ConnectionMachine(options: options, proxy: .trustedProxy)
        _ = machine.start(at: t0)
        return machine
    }

    private func untrusted() -> ConnectionMachine {
        var options = ConnectionMachine.Options()
        options.refusalHold = .none
        options.lingerTimeout = 5
        var machine = ConnectionMachine(options: options, proxy: .untrustedPeer)
        _ = machine.start(at: t0)
        return machine
    }

    // MARK: A trusted proxy

    @Test func theHeaderIsReportedAndNoMessageIsTakenBeforeTheVerdict() {
        var machine = proxied()
        #expect(machine.isAwaitingProxyHeader)
        #expect(machine.received(Self.v1Line + bytes("login:a:b[E];"), at: t0) == [.identify(Self.v1Header)])
        #expect(machine.isAwaitingProxyHeader)
        #expect(machine.identified(at: t0) == [.cancelTimer, .handle(bytes("login:a:b"))])
        #expect(!machine.isAwaitingProxyHeader)
        #expect(machine.answered(.loginRefused, at: t0) == [.send(.loginRefused), .armTimer(t0.adding(seconds: 5))])
    }

    @Test func theHeaderByteAtATimeThenTheMessage() {
        var machine = proxied()
        for byte in Self.v1Line.dropLast() {
            #expect(machine.received([byte], at: t0) == [])
        }
        #expect(machine.received([Self.v1Line.last!], at: t0) == [.identify(Self.v1Header)])
        #expect(machine.identified(at: t0) == [])
        #expect(machine.received(bytes("login:a:b[E];"), at: t0) == [.cancelTimer, .handle(bytes("login:a:b"))])
    }

    @Test func aV2HeaderFollowedByTheMessageInOneRead() {
        var machine = proxied()
        let block: [UInt8] = [10, 9, 8, 7, 10, 0, 0, 1, 0x1F, 0x40, 0xC9, 0x3B]
        let header = ProxyHeader.v2Signature + [0x21, 0x11, 0x00, UInt8(block.count)] + block
        #expect(machine.received(header + bytes("newpost:a:T:c[E];"), at: t0) == [.identify(
            ProxyHeader(version: .v2, source: .init(address: [10, 9, 8, 7], port: 8000),
                        destination: .init(address: [10, 0, 0, 1], port: 51515)))])
        #expect(machine.identified(at: t0) == [.cancelTimer, .handle(bytes("newpost:a:T:c"))])
    }

    @Test func aClientOverItsLimitIsRefusedWithBusyAndItsMessageIsNotTaken() {
        var machine = proxied()
        _ = machine.received(Self.v1Line + bytes("login:a:b[E];"), at: t0)
        #expect(machine.reject(with: .busy, at: t0) == [.refuse(.busy), .armTimer(t0.adding(seconds: 5))])
        #expect(machine.phase == .flushing)
        #expect(machine.identified(at: t0) == [], "a late verdict changes nothing")
    }

    @Test func busyWaitsForTheBusyDelayAfterTheHeaderToo() {
        var options = ConnectionMachine.Options()
        options.refusalHold = RefusalHold(seconds: 1)
        var machine = ConnectionMachine(options: options, proxy: .trustedProxy)
        _ = machine.start(at: t0)
        _ = machine.received(Self.v1Line, at: t0)
        #expect(machine.reject(with: .busy, at: t0) == [.armTimer(t0.adding(seconds: 1)), .pauseReading])
        #expect(machine.phase == .refusing(.busy))
    }

    @Test(arguments: [
        "login:a:b[E];",                                   // no header at all
        "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",               // a bare LF
        "PROXY TCP4 1.2.3.999 5.6.7.8 1 2\r\n",           // a bad address
        "GET / HTTP/1.1\r\n",
    ])
    func aMissingOrMalformedHeaderGetsErrArgsAndCloses(_ text: String) {
        var machine = proxied()
        #expect(machine.received(bytes(text), at: t0) == [.refuse(.badArguments), .armTimer(t0.adding(seconds: 5))])
        #expect(machine.wrote(Reply.badArguments.byteCount, at: t0) == [.shutdownWrite])
        #expect(machine.phase == .draining)
    }

    @Test func anOversizedV2HeaderIsRefusedOnceItsLengthArrives() {
        var machine = proxied()
        #expect(machine.received(ProxyHeader.v2Signature + [0x21, 0x11, 0x02, 0x09], at: t0)
            == [.refuse(.badArguments), .armTimer(t0.adding(seconds: 5))])
    }

    @Test func aHeaderThatNeverComesGetsErrTime() {
        var machine = proxied()
        _ = machine.received(bytes("PROXY TCP4 1.2"), at: t0)
        #expect(machine.timerFired(at: t0.adding(seconds: 10)) == [.refuse(.timedOut), .armTimer(t0.adding(seconds: 15))])
    }

    @Test func aHeaderCutOffByTheProxysCloseGetsErrArgs() {
        var machine = proxied()
        _ = machine.received(bytes("PROXY TCP4 1.2"), at: t0)
        #expect(machine.inputEnded(at: t0) == [.refuse(.badArguments), .armTimer(t0.adding(seconds: 5)), .pauseReading])
    }

    /// A plain TCP health check: connect, close. Nothing to answer, nothing to log.
    @Test func aConnectThatClosesAtOnceClosesWithoutAReply() {
        var machine = proxied()
        #expect(machine.inputEnded(at: t0) == [.armTimer(t0.adding(seconds: 5)), .shutdownWrite, .close])
    }

    /// HAProxy's `check-send-proxy`: a LOCAL header, then the close.
    @Test func aLocalHeaderThenTheCloseClosesWithoutAReply() {
        var machine = proxied()
        #expect(machine.received(Self.v2Local, at: t0)
            == [.identify(ProxyHeader(version: .v2, isLocal: true, source: nil, destination: nil))])
        #expect(machine.inputEnded(at: t0) == [.pauseReading])
        #expect(machine.identified(at: t0) == [.armTimer(t0.adding(seconds: 5)), .shutdownWrite, .close])
    }

    @Test func keepAliveTakesOneHeaderThenManyMessages() {
        var machine = proxied(keepAlive: true)
        _ = machine.received(Self.v1Line, at: t0)
        _ = machine.identified(at: t0)
        #expect(machine.received(Self.v1Line + bytes("x[E];"), at: t0) == [.cancelTimer, .handle(Self.v1Line + bytes("x"))],
                "a second header is just bytes of a message")
    }

    @Test func stopBeforeTheHeaderClosesWithoutAReply() {
        var machine = proxied()
        _ = machine.received(bytes("PROXY "), at: t0)
        #expect(machine.stop(at: t0) == [.armTimer(t0.adding(seconds: 0.5)), .shutdownWrite])
    }

    // MARK: An untrusted peer

    @Test(arguments: [bytes("PROXY TCP4 127.0.0.2 127.0.0.1 1 2\r\nlogin:a:b[E];"), ProxyHeader.v2Signature + [0x21]])
    func aHeaderFromAnUntrustedPeerGetsErrArgs(_ stream: [UInt8]) {
        var machine = untrusted()
        #expect(machine.received(stream, at: t0) == [.refuse(.badArguments), .armTimer(t0.adding(seconds: 5))])
    }

    @Test func aHeaderTricklingInFromAnUntrustedPeerIsRefusedAtItsLastSignatureByte() {
        var machine = untrusted()
        for byte in bytes("PROXY") {
            #expect(machine.received([byte], at: t0) == [])
        }
        #expect(machine.received(bytes(" "), at: t0) == [.refuse(.badArguments), .armTimer(t0.adding(seconds: 5))])
    }

    @Test(arguments: ["login:a:b[E];", "PROXY:a:b[E];", "\r\n  login:a:b[E];", "\r\n\r\nlogin:a:b[E];"])
    func anUntrustedPeersMessageIsAnOrdinaryMessage(_ text: String) {
        var machine = untrusted()
        let body = text.hasPrefix("PROXY") ? "PROXY:a:b" : "login:a:b"
        #expect(machine.received(bytes(text), at: t0) == [.cancelTimer, .handle(bytes(body))])
    }

    @Test func anUntrustedPeersMessageByteAtATime() {
        var machine = untrusted()
        let message = bytes("PROlogin[E];")
        for byte in message.dropLast() { _ = machine.received([byte], at: t0) }
        #expect(machine.received([message.last!], at: t0) == [.cancelTimer, .handle(bytes("PROlogin"))])
    }

    @Test func aShortStartThenTheCloseIsACutOffMessage() {
        var machine = untrusted()
        #expect(machine.received(bytes("PRO"), at: t0) == [])
        #expect(machine.inputEnded(at: t0) == [.refuse(.badArguments), .armTimer(t0.adding(seconds: 5)), .pauseReading])
    }

    // MARK: Off

    @Test func withTheProtocolOffAHeaderIsJustTheStartOfABadMessage() {
        var machine = started()
        #expect(!machine.isAwaitingProxyHeader)
        #expect(machine.received(Self.v1Line + bytes("login:a:b[E];"), at: t0)
            == [.cancelTimer, .handle(Self.v1Line + bytes("login:a:b"))])
    }
}
