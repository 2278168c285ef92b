import BlogWire
import BlogLimits

/// The life of one client connection, without sockets or clocks: bytes and
/// events in, actions out.
///
/// The event loop owns the socket and feeds the machine what happened
/// (bytes read, the end of the stream, a reply from the service, bytes
/// written, a timer); the machine answers with what to do next (carry out
/// a message, send a reply, pause reading, arm a timer, close the write
/// half, close). Every rule of docs/protocol.md's "Connections" lives here.
///
///     var machine = ConnectionMachine(options: .init())
///     machine.start(at: now)                                 // [.armTimer(now + 10 s)]
///     machine.received(Array("login:a:b[E];".utf8), at: now) // [.cancelTimer, .handle(body)]
///     machine.answered(.loginRefused, at: now)              // [.send(.loginRefused), .armTimer(now + 5 s)]
///     machine.wrote(11, at: now)                            // [.shutdownWrite]
///
/// A connection goes `open` → `flushing` (its last reply is queued) →
/// `draining` (write half closed; what the peer still sends is read and
/// dropped, so the kernel never answers it with a reset) → `closed`.
///
/// Under the PROXY protocol (`ProxyRole`), an open connection first reads
/// its trusted proxy's header, reports it with `.identify` and waits for
/// the loop's verdict (`identified` or `reject`) before any message; or,
/// from a peer that is not trusted, refuses a connection that begins with
/// a header, so nobody can claim another's address.
public struct ConnectionMachine: Sendable {
    public struct Options: Sendable, Equatable {
        /// Answer many messages per connection (otherwise one, then close).
        public var keepAlive = false
        public var maxMessageBytes = Frame.defaultMaxMessageBytes
        /// Seconds for a complete message to arrive (idle time with keep-alive).
        public var readTimeout = 10.0
        /// Seconds a closing connection waits for its reply to leave and for
        /// the peer to close, before the socket is closed anyway.
        public var lingerTimeout = 5.0
        /// The linger once the server is stopping, and how long a peer that
        /// does not read its replies may hold the stop: a stop waits for no
        /// one's slow reading (a client pipelining without reading held it
        /// for 10 s).
        public var stopLingerTimeout = 0.5
        /// Reply bytes queued for a peer that does not read, beyond which no
        /// more messages are taken (nor read).
        public var maxQueuedReplyBytes = 64 * 1024
        /// How long an `err:BUSY` waits before it is sent (`RefusalHold`,
        /// the same for every door).
        public var refusalHold = RefusalHold.standard

        public init() {}
    }

    /// What the connection's first bytes may be, under the PROXY protocol.
    public enum ProxyRole: Sendable, Equatable {
        /// The protocol is off: the first bytes are a message (a PROXY
        /// line is just the start of a bad one).
        case none
        /// The peer is a trusted proxy: a PROXY header must come first.
        case trustedProxy
        /// The protocol is on but the peer is not trusted: a connection
        /// that begins with a PROXY header is refused; other bytes are an
        /// ordinary client's.
        case untrustedPeer
    }

    public enum Action: Equatable, Sendable {
        /// The trusted proxy's header arrived: take its client as the
        /// peer (or, without a source, keep the proxy's own address), then
        /// answer with `identified`, or with `reject` when that client is
        /// over a limit. No message is handled meanwhile.
        case identify(ProxyHeader)
        /// Carry out this message body and report its reply with `answered`.
        case handle([UInt8])
        /// Queue the reply to a handled message for the peer.
        case send(Reply)
        /// Queue a reply whose bytes are its own (a list of posts).
        case sendBytes([UInt8])
        /// Queue a reply of the connection's own: a limit the peer ran into.
        case refuse(Reply)
        case pauseReading
        case resumeReading
        /// Call `timerFired` at this moment (replaces any armed timer).
        case armTimer(Moment)
        case cancelTimer
        /// Everything queued is written: close the write half.
        case shutdownWrite
        /// Close the socket; the machine takes no more events.
        case close
    }

    public enum Phase: Sendable, Equatable {
        /// Waiting for or carrying out messages.
        case open
        /// Holding back a refusal (`err:BUSY`) until the busy delay is over;
        /// nothing is read meanwhile.
        case refusing(Reply)
        /// The last reply is queued; the write half closes once it is out.
        case flushing
        /// Write half closed; input is read and dropped until the peer closes.
        case draining
        case closed
    }

    public let options: Options
    public private(set) var phase = Phase.open
    /// Whether the socket should be read now.
    public private(set) var isReading = true
    /// Bytes of queued replies the event loop has not written yet.
    public private(set) var unsentByteCount = 0
    /// A message is with the service; the next waits until it is answered,
    /// which keeps replies in message order.
    public private(set) var isHandling = false

    /// Where the connection stands with a PROXY header.
    private enum Preamble: Sendable {
        /// Nothing to wait for: bytes go to the decoder.
        case settled
        /// A trusted proxy's header is arriving: the bytes so far (at most
        /// one read beyond the header's cap, since the parser decides by then).
        case awaitingHeader([UInt8])
        /// The header is reported: the bytes after it, held for the verdict.
        case awaitingVerdict([UInt8])
        /// An untrusted peer's first bytes, held while they may still be
        /// the start of a header (at most 12).
        case screening([UInt8])
    }

    private var decoder: FrameDecoder
    private var preamble: Preamble
    /// The held refusal answers a message (`.send`), not the connection
    /// itself (`.refuse`).
    private var refusalAnswers = false
    private var peerClosed = false
    private var stopping = false
    private var timer: Moment?
    private var actions: [Action] = []

    /// - Parameters:
    ///   - proxy: whether a PROXY header is expected, refused, or just bytes.
    public init(options: Options, proxy: ProxyRole = .none) {
        self.options = options
        decoder = FrameDecoder(maxMessageBytes: options.maxMessageBytes)
        switch proxy {
        case .none: preamble = .settled
        case .trustedProxy: preamble = .awaitingHeader([])
        case .untrustedPeer: preamble = .screening([])
        }
    }

    /// Whether the connection still waits for its trusted proxy's header
    /// (or for the loop's verdict on it).
    public var isAwaitingProxyHeader: Bool {
        switch preamble {
        case .awaitingHeader, .awaitingVerdict: true
        case .settled, .screening: false
        }
    }

    // MARK: Events

    /// The connection was accepted: the read timeout starts.
    public mutating func start(at now: Moment) -> [Action] {
        run { $0.setTimer(now.adding(seconds: $0.options.readTimeout)) }
    }

    /// The connection was accepted over a limit, or its proxy's client is
    /// over one (the answer to `.identify`): the peer gets `reply`
    /// (`err:BUSY`, after the busy delay) and nothing it sends is read as
    /// a message.
    public mutating func reject(with reply: Reply, at now: Moment) -> [Action] {
        run { machine in
            guard machine.phase == .open else { return }
            machine.preamble = .settled
            machine.refuse(reply, answering: false, at: now)
        }
    }

    /// The loop took the client `.identify` named: messages may come.
    public mutating func identified(at now: Moment) -> [Action] {
        run { machine in
            guard machine.phase == .open, case .awaitingVerdict(let rest) = machine.preamble else { return }
            machine.preamble = .settled
            rest.withUnsafeBytes { machine.decoder.append($0) }
            machine.pump(at: now)
        }
    }

    /// Bytes arrived from the peer.
    public mutating func received(_ bytes: UnsafeRawBufferPointer, at now: Moment) -> [Action] {
        run { machine in
            // Closing connections read only to drop what comes.
            guard machine.phase == .open else { return }
            switch machine.preamble {
            case .settled:
                machine.decoder.append(bytes)
                machine.pump(at: now)
            case .awaitingHeader(var held):
                held.append(contentsOf: bytes)
                machine.readHeader(held, at: now)
            case .awaitingVerdict(var rest):
                // The loop answers `.identify` at once; kept just in case.
                rest.append(contentsOf: bytes)
                machine.preamble = .awaitingVerdict(rest)
            case .screening(var held):
                held.append(contentsOf: bytes)
                machine.screen(held, at: now)
            }
        }
    }

    /// Bytes arrived from the peer.
    public mutating func received(_ bytes: [UInt8], at now: Moment) -> [Action] {
        bytes.withUnsafeBytes { received($0, at: now) }
    }

    /// The peer closed its write half (recv returned 0). Messages already
    /// received are still answered, and a message cut off gets `err:ARGS`.
    public mutating func inputEnded(at now: Moment) -> [Action] {
        run { machine in
            machine.peerClosed = true
            switch machine.phase {
            case .open: machine.pump(at: now)
            case .flushing, .refusing: machine.updateReading()
            case .draining: machine.close()
            case .closed: break
            }
        }
    }

    /// A send or receive failed (reset, broken pipe): nothing more can
    /// reach the peer, so the connection closes at once.
    public mutating func failed() -> [Action] {
        run { $0.close() }
    }

    /// The service's reply to the message in hand.
    public mutating func answered(_ reply: Reply, body: [UInt8]? = nil, at now: Moment) -> [Action] {
        run { machine in
            // The peer may have reset meanwhile: then nobody takes the reply.
            guard machine.isHandling else { return }
            machine.isHandling = false
            guard machine.phase == .open else { return }
            if reply == .busy {
                // The service or a budget said come back later: hold it.
                return machine.refuse(reply, answering: true, at: now)
            }
            if let body {
                machine.queue(.sendBytes(body), byteCount: body.count)
            } else {
                machine.queue(.send(reply), reply)
            }
            if reply.closesConnection || !machine.options.keepAlive {
                machine.finish(refusing: nil, at: now)
            } else {
                machine.pump(at: now)
            }
        }
    }

    /// The event loop wrote `count` queued bytes to the socket.
    public mutating func wrote(_ count: Int, at now: Moment) -> [Action] {
        run { machine in
            machine.unsentByteCount = max(0, machine.unsentByteCount - count)
            switch machine.phase {
            case .open: machine.pump(at: now)
            case .flushing: machine.closeWriteHalfIfFlushed()
            case .refusing, .draining, .closed: break
            }
        }
    }

    /// The armed timer's moment came. A timer that is no longer armed (the
    /// loop raced a re-arm) does nothing.
    public mutating func timerFired(at now: Moment) -> [Action] {
        run { machine in
            guard let due = machine.timer, due <= now else { return }
            machine.timer = nil
            switch machine.phase {
            case .open where machine.isHandling:
                // The read timeout is for the peer, not for the server's work.
                break
            case .open where machine.stopping:
                // The stop's linger is over and its replies still wait.
                machine.close()
            case .open: machine.finish(refusing: .timedOut, at: now)
            case .refusing(let reply):
                machine.phase = .open
                machine.sendRefusal(reply, at: now)
            case .flushing, .draining: machine.close()
            case .closed: break
            }
        }
    }

    /// Whether the connection waits for a message with none in hand: what
    /// an eviction may take (a slow or silent client, not one being served).
    public var isIdle: Bool { phase == .open && !isHandling }

    /// The connection's place goes to a newcomer (the server is full and
    /// this one has waited longest without a complete message): `err:BUSY`
    /// at once, no busy delay (it has waited already), then it closes.
    /// Does nothing to a connection that is not idle.
    public mutating func evict(at now: Moment) -> [Action] {
        run { machine in
            guard machine.isIdle else { return }
            machine.finish(refusing: .busy, at: now)
        }
    }

    /// The server is stopping: every message already received is answered,
    /// then the connection closes; nothing more is taken.
    public mutating func stop(at now: Moment) -> [Action] {
        run { machine in
            machine.stopping = true
            let linger = now.adding(seconds: min(machine.options.lingerTimeout, machine.options.stopLingerTimeout))
            switch machine.phase {
            case .open:
                machine.pump(at: now)
                // Still open with nothing in hand: its replies pile up
                // unread. It has the stop's linger to take them.
                if machine.phase == .open && !machine.isHandling { machine.setTimer(linger) }
            case .flushing, .draining:
                if let timer = machine.timer, timer > linger { machine.setTimer(linger) }
            case .refusing, .closed:
                break
            }
        }
    }

    // MARK: Rules

    /// A trusted proxy's header, or what has come of it: report it, wait
    /// for more, or refuse (`err:ARGS`) what cannot be one.
    private mutating func readHeader(_ held: [UInt8], at now: Moment) {
        switch ProxyHeader.parse(held) {
        case .needMore:
            preamble = .awaitingHeader(held)
            updateReading()
        case .invalid:
            preamble = .settled
            finish(refusing: .badArguments, at: now)
        case .header(let header, let consumed):
            preamble = .awaitingVerdict(Array(held[consumed...]))
            actions.append(.identify(header))
        }
    }

    /// An untrusted peer's first bytes: a header is refused (`err:ARGS`),
    /// anything else is an ordinary client's stream.
    private mutating func screen(_ held: [UInt8], at now: Moment) {
        switch ProxyHeader.signature(in: held) {
        case .undecided:
            preamble = .screening(held)
            updateReading()
        case .present:
            preamble = .settled
            finish(refusing: .badArguments, at: now)
        case .absent:
            preamble = .settled
            held.withUnsafeBytes { decoder.append($0) }
            pump(at: now)
        }
    }

    /// Takes the next complete message in hand, or, with none left, closes
    /// or goes on reading as the connection's state says.
    private mutating func pump(at now: Moment) {
        switch preamble {
        case .settled:
            break
        case .awaitingHeader(let held):
            // No header yet. A peer that closes without a byte is a plain
            // TCP health check: no reply. One that stops mid-header gets
            // what a message cut off gets.
            if peerClosed { return finish(refusing: held.isEmpty ? nil : .badArguments, at: now) }
            if stopping { return finish(refusing: nil, at: now) }
            return updateReading()
        case .awaitingVerdict:
            return updateReading()
        case .screening(let held):
            guard peerClosed || stopping else { return updateReading() }
            // Too short to be a header: the bytes are the client's.
            preamble = .settled
            held.withUnsafeBytes { decoder.append($0) }
        }
        while phase == .open && !isHandling {
            // A peer that does not read its replies gets no more answers
            // until it catches up.
            if unsentByteCount > options.maxQueuedReplyBytes { return updateReading() }
            guard let event = decoder.next() else { break }
            switch event {
            case .oversized:
                return finish(refusing: .tooLarge, at: now)
            case .message(let body):
                isHandling = true
                setTimer(nil)
                actions.append(.handle(body))
            }
        }
        guard phase == .open else { return }
        if isHandling { return updateReading() }
        if peerClosed {
            // A message cut off by the peer's close gets an answer too.
            finish(refusing: decoder.hasPartialMessage ? .badArguments : nil, at: now)
        } else if stopping {
            finish(refusing: nil, at: now)
        } else {
            // Idle (keep-alive, after a reply): the read timeout runs again.
            if timer == nil { setTimer(now.adding(seconds: options.readTimeout)) }
            updateReading()
        }
    }

    /// Refuses with `reply` once the busy delay is over (at once without
    /// one); until then the connection is neither read nor answered.
    private mutating func refuse(_ reply: Reply, answering: Bool, at now: Moment) {
        refusalAnswers = answering
        guard options.refusalHold.isHeld else { return sendRefusal(reply, at: now) }
        phase = .refusing(reply)
        setTimer(options.refusalHold.release(after: now))
        updateReading()
    }

    private mutating func sendRefusal(_ reply: Reply, at now: Moment) {
        guard refusalAnswers else { return finish(refusing: reply, at: now) }
        queue(.send(reply), reply)
        finish(refusing: nil, at: now)
    }

    /// Queues a last reply (if any) and starts closing: flush, close the
    /// write half, drain, close, all within the linger time.
    private mutating func finish(refusing reply: Reply?, at now: Moment) {
        guard phase == .open else { return }
        preamble = .settled
        if let reply { queue(.refuse(reply), reply) }
        phase = .flushing
        setTimer(now.adding(seconds: stopping ? min(options.lingerTimeout, options.stopLingerTimeout) : options.lingerTimeout))
        closeWriteHalfIfFlushed()
        updateReading()
    }

    private mutating func closeWriteHalfIfFlushed() {
        guard phase == .flushing, unsentByteCount == 0 else { return }
        actions.append(.shutdownWrite)
        phase = .draining
        if peerClosed { close() } else { updateReading() }
    }

    private mutating func close() {
        guard phase != .closed else { return }
        phase = .closed
        timer = nil
        actions.append(.close)
    }

    private mutating func queue(_ action: Action, _ reply: Reply) {
        queue(action, byteCount: reply.byteCount)
    }

    private mutating func queue(_ action: Action, byteCount: Int) {
        actions.append(action)
        unsentByteCount += byteCount
    }

    /// Reads only while there is room: replies not piling up unread, at
    /// most one message's worth held, and the peer not gone (a closed
    /// socket stays readable and would spin the loop).
    private mutating func updateReading() {
        let wanted: Bool
        switch phase {
        case .open:
            // Up to the limit plus a terminator all but its last byte, the
            // decoder cannot tell a message from an oversized one: reading
            // must go on until it can.
            wanted = !peerClosed && unsentByteCount <= options.maxQueuedReplyBytes
                && decoder.pendingByteCount < options.maxMessageBytes + Frame.terminator.count
        case .flushing, .draining:
            wanted = !peerClosed
        case .refusing:
            wanted = false
        case .closed:
            return
        }
        guard wanted != isReading else { return }
        isReading = wanted
        actions.append(wanted ? .resumeReading : .pauseReading)
    }

    private mutating func setTimer(_ moment: Moment?) {
        guard moment != timer else { return }
        timer = moment
        actions.append(moment.map { .armTimer($0) } ?? .cancelTimer)
    }

    private mutating func run(_ body: (inout ConnectionMachine) -> Void) -> [Action] {
        guard phase != .closed else { return [] }
        actions.removeAll(keepingCapacity: true)
        body(&self)
        return actions
    }
}
