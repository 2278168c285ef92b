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
/// carried out on that queue too, which keeps replies in message order.
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
    private var writeArmed = false
    private var liveSources = 0

    init(fd: Int32, peer: String, service: BlogService, options: ConnectionOptions, logger: Logger,
         isStopping: @escaping @Sendable () -> Bool, onClose: @escaping @Sendable (Connection) -> Void) {
        self.fd = fd
        self.peer = peer
        self.queue = DispatchQueue(label: "blogd.connection")
        self.service = service
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
            readable()
            if state == .open { finish(with: nil) }
        }
    }

    // MARK: Reading

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                if state == .open { decoder.append(chunk[0..<n]) }
                // Read no further than one message can be: the rest waits in
                // the kernel, which throttles a peer that sends too much.
                if state == .open && decoder.pendingByteCount > options.maxMessageBytes { break }
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

    /// Answers every complete message in hand, in order.
    private func pump() {
        while state == .open {
            if outbox.count > options.maxQueuedReplyBytes {
                // The peer is not reading its replies: stop reading its
                // requests until it catches up.
                pauseReading()
                return
            }
            guard let event = decoder.next() else { break }
            switch event {
            case .oversized:
                return finish(with: .tooLarge)
            case .message(let body):
                let started = DispatchTime.now()
                let outcome = service.handle(message: body, session: &session)
                audit(outcome, since: started)
                outbox += outcome.reply.bytes
                if !options.keepAlive { return finish(with: nil) }
                timer?.schedule(deadline: .now() + options.readTimeout)
                flush()
            }
        }
        guard state == .open else { return }
        if peerClosed {
            // A message cut off by the peer's close gets an answer too.
            finish(with: decoder.hasPartialMessage ? .badArguments : nil)
        } else if isStopping() {
            // Everything that had arrived is answered; nothing more is taken.
            finish(with: nil)
        } else if readPaused && outbox.isEmpty {
            resumeReading()
        }
    }

    private func timerFired() {
        switch state {
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
        case .open where readPaused:
            // Replies drained: take requests again.
            resumeReading()
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
