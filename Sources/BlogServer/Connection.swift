import BlogCore
@preconcurrency import Dispatch
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// One client connection: reads messages, asks the service, writes replies.
///
/// Every piece of mutable state is touched only on `queue`, a serial queue
/// of its own, so a slow or silent peer holds up nobody else. A request is
/// carried out by the server's `RequestLimiter`, one at a time per
/// connection, which keeps replies in message order.
final class Connection: @unchecked Sendable {
    private enum State {
        /// Waiting for or handling messages.
        case open
        /// The last reply is queued; it leaves before the write half closes.
        case flushing
        /// Write half closed; unread input is discarded until the peer
        /// closes, so the kernel never answers it with a reset.
        case draining
        case closed
    }

    let fd: Int32
    let peer: String
    private let queue: DispatchQueue
    private let service: BlogService
    private let workers: RequestLimiter
    private let options: ConnectionOptions
    private let logger: Logger
    private let isStopping: @Sendable () -> Bool
    private let onClose: @Sendable (Connection) -> Void

    private var state = State.open
    private var session: Session
    private var decoder: FrameDecoder
    private var outbox: [UInt8] = []
    private var peerClosed = false
    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var timer: (any DispatchSourceTimer)?
    private var readPaused = false
    /// A request is with the service; the next waits until it is answered.
    private var inFlight = false
    private var writeArmed = false
    private var liveSources = 0

    init(fd: Int32, peer: String, service: BlogService, workers: RequestLimiter, options: ConnectionOptions, logger: Logger,
         isStopping: @escaping @Sendable () -> Bool, onClose: @escaping @Sendable (Connection) -> Void) {
        self.fd = fd
        self.peer = peer
        self.queue = DispatchQueue(label: "blogd.connection")
        self.service = service
        self.workers = workers
        self.options = options
        self.logger = logger
        self.isStopping = isStopping
        self.onClose = onClose
        self.session = Session(peerAddress: peer)
        self.decoder = FrameDecoder(maxMessageBytes: options.maxMessageBytes)
    }

    /// Starts reading; with `rejecting`, answers it and closes instead.
    func start(rejecting reply: Reply? = nil) {
        queue.async { [self] in
            let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            read.setEventHandler { [unowned self] in readable() }
            read.setCancelHandler { [self] in sourceCancelled() }
            let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            write.setEventHandler { [unowned self] in flush() }
            write.setCancelHandler { [self] in sourceCancelled() }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [unowned self] in timerFired() }
            timer.setCancelHandler { [self] in sourceCancelled() }
            liveSources = 3
            readSource = read
            writeSource = write
            self.timer = timer
            timer.schedule(deadline: .now() + options.readTimeout)
            timer.resume()
            read.resume()
            if let reply { finish(with: reply) }
        }
    }

    /// The server is shutting down: answer what has already arrived (even
    /// if still in the kernel's buffer), then close.
    func stop() {
        queue.async { [self] in
            guard state == .open, readSource != nil else { return }
            if !inFlight { readable() }
            // With a request in hand, its completion sees `isStopping`.
            if state == .open && !inFlight { finish(with: nil) }
        }
    }

    // MARK: Reading

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // Hold no more than one message's worth: the rest waits in the
        // kernel, which throttles a peer that sends too much.
        while state != .open || decoder.pendingByteCount <= options.maxMessageBytes {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                if state == .open { decoder.append(chunk[0..<n]) }
                continue
            }
            if n == 0 {
                peerClosed = true
            } else if errno == EINTR {
                continue
            } else if errno != EAGAIN && errno != EWOULDBLOCK {
                peerClosed = true
                if state != .open { return close() }
            }
            break
        }
        switch state {
        case .open where inFlight:
            // The request in hand is answered first.
            updateReading()
        case .open:
            pump()
        case .draining:
            if peerClosed { close() }
        case .flushing:
            // A vanished peer cannot take the reply.
            if peerClosed && outbox.isEmpty { close() }
            else if peerClosed { pauseReading() }
        case .closed:
            break
        }
    }

    /// Takes the next complete message in hand, or, with none left, closes
    /// or resumes reading as the connection's state says.
    private func pump() {
        while state == .open && !inFlight {
            // A peer that does not read its replies gets no more answers
            // (nor is read from) until it catches up.
            if outbox.count > options.maxQueuedReplyBytes { return updateReading() }
            guard let event = decoder.next() else { break }
            switch event {
            case .oversized:
                return finish(with: .tooLarge)
            case .message(let body):
                return handle(body)
            }
        }
        guard state == .open, !inFlight else { return }
        if peerClosed {
            // A message cut off by the peer's close gets an answer too.
            finish(with: decoder.hasPartialMessage ? .badArguments : nil)
        } else if isStopping() {
            // Everything that had arrived is answered; nothing more is taken.
            finish(with: nil)
        } else {
            updateReading()
        }
    }

    /// Hands one message to the service, off this queue: the service may
    /// block (scrypt, fsync), and this queue must stay free for the peer.
    private func handle(_ body: [UInt8]) {
        inFlight = true
        let started = DispatchTime.now()
        let session = self.session
        updateReading()
        workers.submit { [self, service] in
            var session = session
            let outcome = service.handle(message: body, session: &session)
            let updated = session
            queue.async { self.answered(outcome, session: updated, since: started) }
        }
    }

    private func answered(_ outcome: Outcome, session: Session, since started: DispatchTime) {
        inFlight = false
        self.session = session
        audit(outcome, since: started)
        // A peer that reset meanwhile cannot take the reply.
        guard state == .open else { return }
        outbox += outcome.reply.bytes
        if !options.keepAlive { return finish(with: nil) }
        timer?.schedule(deadline: .now() + options.readTimeout)
        flush()
        pump()
    }

    private func timerFired() {
        switch state {
        case .open where inFlight:
            // The read timeout is for the peer, not for the server's work.
            timer?.schedule(deadline: .now() + options.readTimeout)
        case .open: finish(with: .timedOut)
        case .flushing, .draining: close()
        case .closed: break
        }
    }

    // MARK: Writing and closing

    /// Queues a last reply (if any), then closes gracefully: flush, close the
    /// write half, drain, close.
    private func finish(with reply: Reply?) {
        guard state == .open else { return }
        if let reply {
            outbox += reply.bytes
            if reply != .busy { audit(Outcome(reply: reply), since: nil) }
        }
        state = .flushing
        timer?.schedule(deadline: .now() + options.lingerTimeout)
        flush()
    }

    private func flush() {
        while !outbox.isEmpty {
            let n = outbox.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                outbox.removeFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                armWrite(true)
                return
            } else {
                // The peer reset or vanished: nothing more can reach it.
                return close()
            }
        }
        armWrite(false)
        switch state {
        case .flushing:
            shutdown(fd, Int32(SHUT_WR))
            state = .draining
            if peerClosed { close() } else { resumeReading() }
        case .open where readPaused && !inFlight:
            // Replies drained: answer and read again.
            queue.async { [self] in if state == .open { pump() } }
        default:
            break
        }
    }

    private func close() {
        guard state != .closed else { return }
        state = .closed
        // Suspended sources must be resumed before they can be cancelled.
        resumeReading()
        armWrite(true)
        readSource?.cancel()
        writeSource?.cancel()
        timer?.cancel()
    }

    /// The fd is closed only after every source watching it is cancelled.
    private func sourceCancelled() {
        liveSources -= 1
        guard liveSources == 0 else { return }
        Glibc.close(fd)
        readSource = nil
        writeSource = nil
        timer = nil
        onClose(self)
    }

    /// Reads only while there is room: replies not piling up unread, at
    /// most one message's worth held, and the peer not gone (a closed
    /// socket stays readable and would spin).
    private func updateReading() {
        guard state == .open else { return }
        if outbox.count > options.maxQueuedReplyBytes || decoder.pendingByteCount > options.maxMessageBytes || peerClosed {
            pauseReading()
        } else {
            resumeReading()
        }
    }

    private func pauseReading() {
        guard !readPaused else { return }
        readPaused = true
        readSource?.suspend()
    }

    private func resumeReading() {
        guard readPaused else { return }
        readPaused = false
        readSource?.resume()
    }

    private func armWrite(_ armed: Bool) {
        guard armed != writeArmed else { return }
        writeArmed = armed
        if armed { writeSource?.resume() } else { writeSource?.suspend() }
    }

    // MARK: Audit

    /// One line per request; never the password or the post text.
    private func audit(_ outcome: Outcome, since started: DispatchTime?) {
        var metadata: Logger.Metadata = ["peer": "\(peer)", "reply": "\(outcome.reply.rawValue)"]
        if let command = outcome.command { metadata["command"] = "\(command)" }
        if let user = outcome.user { metadata["user"] = "\(user)" }
        if let started {
            let micros = (DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1000
            metadata["ms"] = "\(Double(micros) / 1000)"
        }
        logger.info("request", metadata: metadata)
    }
}
