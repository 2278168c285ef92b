import BlogCore
import BlogSockets
import BlogWire
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import BlogLimits
#endif

/// One epoll thread that owns its connections: it accepts them, reads,
/// writes, half-closes and times them, and feeds each one's
/// `ConnectionMachine`. Requests leave it for the router's Dispatch
/// workers and come back through its inbox, woken by an eventfd.
///
/// Only the loop's own thread registers, changes and closes its
/// descriptors, so no two threads ever race on one epoll set.
final class EventLoop: @unchecked Sendable {
    /// What every loop of a server shares.
    struct Context: Sendable {
        var connection: ConnectionMachine.Options
        var limits: ConnectionLimits
        var router: RequestRouter
        var audit: AuditLog
        var clock: ServerClock
        /// Whose PROXY headers are believed; nil when the PROXY protocol is off.
        var proxies: TrustedProxies?
        /// Seconds a connection must have waited for a message before a
        /// newcomer may take its place in a full table; nil never evicts.
        var evictIdleAfter: Double?
        var refusals: RefusalLog
    }

    /// A reply from a worker, on its way back to its connection.
    private struct Completion {
        var token: UInt64
        var outcome: Outcome
        var session: Session
    }

    private struct Inbox {
        var completions: [Completion] = []
        var stopRequested = false
        /// The loop has exited and closed its eventfd: nobody may signal it.
        var closed = false
    }

    private static let wakeToken: UInt64 = 0
    private static let readBufferSize = 64 * 1024
    /// Connections taken per listener wake-up, so a connect flood cannot
    /// starve the connections already open.
    private static let acceptBatch = 64

    let name: String
    private let context: Context
    private let listeners: [ListeningSocket]
    private let epoll: Epoll
    private let wakeup: EventFD
    private let inbox = Mutex(Inbox())
    private let exited = DispatchSemaphore(value: 0)
    private let listenersDetached = DispatchSemaphore(value: 0)
    private let openConnections = Atomic<Int>(0)
    private let unreadConnections = Atomic<Int>(0)
    private let refusingConnections = Atomic<Int>(0)

    // Loop-thread state.
    private var slots: [LoopConnection?] = []
    private var generations: [UInt32] = []
    private var freeSlots: [Int] = []
    private var timers = TimerHeap()
    /// Connections waiting for a message, longest first: whom a newcomer evicts.
    private var idle = IdleQueue()
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var acceptPausedUntil: Moment?
    private var stopping = false

    init(name: String, context: Context, listeners: [ListeningSocket]) throws(SocketError) {
        self.name = name
        self.context = context
        self.listeners = listeners
        epoll = try Epoll()
        do {
            wakeup = try EventFD()
        } catch {
            epoll.close()
            throw error
        }
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        do {
            try epoll.add(wakeup.fd, events: .readable, token: Self.wakeToken)
            try watchListeners()
        } catch {
            epoll.close()
            wakeup.close()
            readBuffer.deallocate()
            throw error
        }
        if case .manual(let clock) = context.clock {
            clock.watch { [weak self] in self?.wake() }
        }
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Connections this loop holds open right now.
    var connectionCount: Int { openConnections.load(ordering: .relaxed) }

    /// Open connections whose input the loop leaves unread right now.
    var unreadCount: Int { unreadConnections.load(ordering: .relaxed) }

    /// Connections whose refusal is held back for the busy delay.
    var refusingCount: Int { refusingConnections.load(ordering: .relaxed) }

    /// Starts the loop's thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Asks the loop to stop (from any thread): it stops accepting, answers
    /// what its connections already received, and exits once they are all
    /// closed. Returns once it no longer watches the listeners.
    func requestStop() {
        let running = inbox.withLock { inbox in
            inbox.stopRequested = true
            if !inbox.closed { wakeup.signal() }
            return !inbox.closed
        }
        // No time limit: the caller closes the listeners next, and a loop
        // that still watched one could accept from whatever socket takes
        // its number. The loop answers at its next turn, or signals as
        // it exits.
        if running { listenersDetached.wait() }
    }

    /// Wakes the loop (from any thread), unless it has exited.
    private func wake() {
        // Signalled under the lock: once the loop has closed the eventfd,
        // its number may belong to another file.
        inbox.withLock { if !$0.closed { wakeup.signal() } }
    }

    /// Waits until the loop's thread has exited; false on timeout.
    func waitUntilExited(timeout: Double) -> Bool {
        guard exited.wait(timeout: .now() + timeout) == .success else { return false }
        // Let later waiters see it too.
        exited.signal()
        return true
    }

    // MARK: The loop

    private func run() {
        var ready = Epoll.ReadyList(capacity: 256)
        while true {
            do {
                try epoll.wait(into: &ready, timeoutMilliseconds: timeoutMilliseconds())
            } catch {
                context.audit.logger.critical("event loop failed", metadata: ["error": "\(error)"])
                break
            }
            let now = context.clock.now()
            for index in 0..<ready.count {
                let (token, flags) = ready[index]
                if token == Self.wakeToken {
                    wakeup.drain()
                    takeInbox(at: now)
                } else if token <= UInt64(listeners.count) {
                    accept(from: listeners[Int(token) - 1], at: now)
                } else {
                    connectionEvent(token, flags, at: now)
                }
            }
            fireTimers(at: context.clock.now())
            resumeAcceptingIfDue(at: now)
            if stopping && connectionCount == 0 { break }
        }
        epoll.close()
        inbox.withLock { inbox in
            inbox.closed = true
            wakeup.close()
        }
        // A loop that failed before its stop was asked no longer watches
        // anything either (a second signal is never waited for).
        if !stopping { listenersDetached.signal() }
        exited.signal()
    }

    private func timeoutMilliseconds() -> Int32 {
        let candidates = [timers.earliest, acceptPausedUntil].compactMap { $0 }
        guard let next = candidates.min() else { return -1 }
        let now = context.clock.now()
        if next <= now { return 0 }
        // A manual clock moves only by `advance`, which wakes the loop.
        if case .manual = context.clock { return -1 }
        return Int32(clamping: Int((next.seconds(since: now) * 1000).rounded(.up)))
    }

    private func takeInbox(at now: Moment) {
        let taken = inbox.withLock { inbox in
            defer { inbox.completions.removeAll(keepingCapacity: true) }
            return (inbox.completions, inbox.stopRequested)
        }
        for completion in taken.0 {
            guard let connection = connection(for: completion.token) else { continue }
            connection.session = completion.session
            apply(connection.machine.answered(completion.outcome.reply, body: completion.outcome.body, at: now),
                  to: connection, at: now)
        }
        if taken.1 && !stopping { beginStop(at: now) }
    }

    /// Called on a worker's thread with a request's outcome.
    private func post(_ completion: Completion) {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            // One wake-up carries every completion posted before the loop reads.
            if inbox.completions.isEmpty { wakeup.signal() }
            inbox.completions.append(completion)
        }
    }

    // MARK: Accepting

    private func watchListeners() throws(SocketError) {
        for (index, listener) in listeners.enumerated() {
            try epoll.add(listener.socket.fd, events: [.readable, .exclusive], token: UInt64(index + 1))
        }
    }

    private func unwatchListeners() {
        listeners.forEach { epoll.remove($0.socket.fd) }
    }

    private func accept(from listener: ListeningSocket, at now: Moment) {
        guard !stopping, acceptPausedUntil == nil else { return }
        for _ in 0..<Self.acceptBatch {
            do {
                switch try listener.socket.accept() {
                case .wouldBlock: return
                case .done(let (socket, peer)):
                    // Read afresh for each: eviction weighs how long the
                    // others have waited, and a batch takes a while.
                    admit(socket, peer: peer, at: context.clock.now())
                }
            } catch {
                switch error.errno {
                case ECONNABORTED, EPROTO, EPERM:
                    // That one client is gone; the next may be fine.
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory: back off instead of
                    // spinning on a listener that stays readable.
                    context.audit.logger.warning("accept paused", metadata: ["error": "\(error)"])
                    unwatchListeners()
                    acceptPausedUntil = now.adding(seconds: 0.1)
                    return
                default:
                    context.audit.logger.error("accept failed", metadata: ["error": "\(error)"])
                    return
                }
            }
        }
    }

    private func resumeAcceptingIfDue(at now: Moment) {
        guard let until = acceptPausedUntil, until <= now else { return }
        acceptPausedUntil = nil
        if !stopping { try? watchListeners() }
    }

    private func admit(_ socket: Socket, peer: SocketAddress, at now: Moment) {
        let key = AddressKey(peer)
        let role: ConnectionMachine.ProxyRole = switch context.proxies {
        case nil: .none
        case let proxies? where proxies.contains(peer): .trustedProxy
        case _?: .untrustedPeer
        }
        // A proxy speaks for many clients: each is counted per address
        // once its header names it, not the proxy itself.
        let limitedKey = role == .trustedProxy ? nil : key
        guard let admission = context.limits.admit(from: limitedKey, evicting: { evictIdle(at: now) }) else {
            socket.close()
            return
        }
        let slot = freeSlots.popLast() ?? {
            slots.append(nil)
            generations.append(0)
            return slots.count - 1
        }()
        generations[slot] &+= 1
        let token = UInt64(slot + 1) << 32 | UInt64(generations[slot])
        let connection = LoopConnection(socket: socket, token: token, peer: peer, budgetKey: key, admission: admission,
                                        limitedKey: admission == .served ? limitedKey : nil,
                                        options: context.connection, proxy: role)
        do {
            try epoll.add(socket.fd, events: .readable, token: token)
        } catch {
            socket.close()
            context.limits.release(admission, from: connection.limitedKey)
            freeSlots.append(slot)
            return
        }
        slots[slot] = connection
        openConnections.add(1, ordering: .relaxed)
        ConnectionMetrics.shared.open.increment()
        switch admission {
        case .served: apply(connection.machine.start(at: now), to: connection, at: now)
        case .rejected: apply(connection.machine.reject(with: .busy, at: now), to: connection, at: now)
        }
    }

    // MARK: Connections

    private func connection(for token: UInt64) -> LoopConnection? {
        let slot = Int(token >> 32) - 1
        guard slot >= 0, slot < slots.count, let connection = slots[slot], connection.token == token else { return nil }
        return connection
    }

    private func connectionEvent(_ token: UInt64, _ flags: Epoll.Events, at now: Moment) {
        guard let connection = connection(for: token) else { return }
        if flags.contains(.writable) && connection.waitingToWrite {
            connection.waitingToWrite = false
            apply([], to: connection, at: now)
        }
        guard connection.machine.phase != .closed else { return }
        if flags.contains(.readable) && connection.machine.isReading {
            read(connection, at: now)
        } else if !flags.isDisjoint(with: [.error, .hangUp]) && !connection.waitingToWrite {
            // Not reading, yet the peer reset: nobody can take a reply now.
            apply(connection.machine.failed(), to: connection, at: now)
        }
    }

    /// One receive into the loop's buffer, handed to the machine. Level
    /// triggering brings the loop back if more is waiting, after the other
    /// connections had their turn.
    private func read(_ connection: LoopConnection, at now: Moment) {
        let actions: [ConnectionMachine.Action]
        do {
            switch try connection.socket.receive(into: readBuffer) {
            case .wouldBlock: return
            case .done(0): actions = connection.machine.inputEnded(at: now)
            case .done(let count):
                actions = connection.machine.received(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), at: now)
            }
        } catch {
            actions = connection.machine.failed()
        }
        apply(actions, to: connection, at: now)
    }

    /// Carries out the machine's actions, then writes what is queued, and
    /// goes on with whatever the machine says to that, until it rests.
    private func apply(_ first: [ConnectionMachine.Action], to connection: LoopConnection, at now: Moment) {
        var actions = first
        while true {
            var answer: Outcome?
            var verdict: [ConnectionMachine.Action]?
            for action in actions {
                switch action {
                case .identify(let header):
                    verdict = identify(connection, by: header, at: now)
                case .handle(let body):
                    answer = dispatch(body, from: connection, at: now)
                case .send(let reply):
                    connection.output.append(reply)
                case .sendBytes(let bytes):
                    connection.output.append(bytes)
                case .refuse(let reply):
                    connection.output.append(reply)
                    if reply == .busy {
                        // Counted as a rate, not a line each (an eviction
                        // is counted where it happens).
                        if !connection.evicted { context.refusals.note(.overLimit, at: now) }
                    } else {
                        RequestMetrics.shared.recordWithoutMessage(reply)
                        context.audit.refused(reply, peer: connection.session.peerAddress)
                    }
                case .pauseReading, .resumeReading:
                    break // the interest is set from `isReading` below
                case .armTimer(let moment):
                    connection.deadline = moment
                    schedule(connection)
                case .cancelTimer:
                    connection.deadline = nil
                case .shutdownWrite:
                    connection.socket.shutdownWrite()
                case .close:
                    return close(connection)
                }
            }
            if let verdict {
                actions = verdict
            } else if let answer {
                actions = connection.machine.answered(answer.reply, at: now)
            } else if !connection.output.isEmpty && !connection.waitingToWrite {
                actions = write(connection, at: now)
            } else {
                break
            }
        }
        updateInterest(connection, at: now)
    }

    /// Takes the client a trusted proxy's header names as the connection's
    /// peer, for leases, budgets, the per-address limit and the audit log;
    /// the machine's answer to the verdict.
    private func identify(_ connection: LoopConnection, by header: ProxyHeader,
                          at now: Moment) -> [ConnectionMachine.Action] {
        guard let source = header.source, let client = SocketAddress(ipBytes: source.address, port: source.port) else {
            // A health check (LOCAL) or a client the proxy cannot name:
            // the proxy's own address stands, with no per-address place.
            context.audit.logger.debug(header.isLocal ? "proxy health check" : "proxy header without a client address",
                                       metadata: ["proxy": "\(connection.peer.host)"])
            return connection.machine.identified(at: now)
        }
        let key = AddressKey(client)
        connection.session = Session(peerAddress: client.host)
        connection.budgetKey = key
        guard context.limits.reserveAddress(key) else {
            ConnectionMetrics.shared.refusedPerAddress.increment()
            return connection.machine.reject(with: .busy, at: now)
        }
        connection.limitedKey = key
        return connection.machine.identified(at: now)
    }

    /// One send of the queued bytes; the machine's answer to it.
    private func write(_ connection: LoopConnection, at now: Moment) -> [ConnectionMachine.Action] {
        do {
            switch try connection.output.withUnwritten({ bytes throws(SocketError) in try connection.socket.send(bytes) }) {
            case .done(let count):
                connection.output.consume(count)
                return connection.machine.wrote(count, at: now)
            case .wouldBlock:
                connection.waitingToWrite = true
                return []
            }
        } catch {
            return connection.machine.failed()
        }
    }

    /// Hands a message to the router: the outcome at once, or nil when a
    /// worker will post it back.
    private func dispatch(_ body: [UInt8], from connection: LoopConnection, at now: Moment) -> Outcome? {
        let token = connection.token
        return context.router.route(body, session: connection.session, from: connection.budgetKey, at: now) { [self] outcome, session in
            post(Completion(token: token, outcome: outcome, session: session))
        }
    }

    private func updateInterest(_ connection: LoopConnection, at now: Moment) {
        if connection.machine.isIdle {
            if connection.idleSince == nil {
                connection.idleSince = now
                idle.append(connection.token, since: now)
            }
        } else {
            connection.idleSince = nil
        }
        let unread = connection.machine.phase == .open && !connection.machine.isReading
        if unread != connection.countedUnread {
            connection.countedUnread = unread
            unreadConnections.add(unread ? 1 : -1, ordering: .relaxed)
        }
        var refusing = false
        if case .refusing = connection.machine.phase { refusing = true }
        if refusing != connection.countedRefusing {
            connection.countedRefusing = refusing
            refusingConnections.add(refusing ? 1 : -1, ordering: .relaxed)
        }
        var wanted: Epoll.Events = []
        if connection.machine.isReading { wanted.insert(.readable) }
        if connection.waitingToWrite { wanted.insert(.writable) }
        guard wanted != connection.interest else { return }
        connection.interest = wanted
        try? epoll.modify(connection.socket.fd, events: wanted, token: connection.token)
    }

    private func close(_ connection: LoopConnection) {
        let slot = Int(connection.token >> 32) - 1
        guard slots[slot] === connection else { return }
        slots[slot] = nil
        freeSlots.append(slot)
        // Closing the descriptor also takes it out of the epoll set.
        connection.socket.close()
        if let admission = connection.admission { context.limits.release(admission, from: connection.limitedKey) }
        openConnections.subtract(1, ordering: .relaxed)
        ConnectionMetrics.shared.open.decrement()
        if connection.countedUnread { unreadConnections.subtract(1, ordering: .relaxed) }
        if connection.countedRefusing { refusingConnections.subtract(1, ordering: .relaxed) }
    }

    // MARK: Eviction

    /// Frees a place in the full table for a newcomer: the connection of
    /// this loop that has waited longest for a message, if long enough,
    /// from an address holding more than its fair share. It gets
    /// `err:BUSY` at once and is closed. False when none may go.
    private func evictIdle(at now: Moment) -> Bool {
        guard let after = context.evictIdleAfter else { return false }
        if idle.count > 2 * max(64, connectionCount) {
            idle.removeAll { !isIdleEntry($0) }
        }
        let victim = idle.first(scanning: 256, dropping: { !isIdleEntry($0) }) { entry in
            // Entries are in time order: the rest are younger still.
            guard now.seconds(since: entry.since) >= after else { return .stop }
            let connection = self.connection(for: entry.token)!
            return context.limits.evictable(connection.limitedKey) ? .take : .skip
        }
        guard let victim, let connection = connection(for: victim.token) else { return false }
        evict(connection, at: now)
        return true
    }

    private func isIdleEntry(_ entry: IdleQueue.Entry) -> Bool {
        guard let connection = connection(for: entry.token) else { return false }
        return connection.idleSince == entry.since && connection.machine.isIdle && connection.admission == .served
    }

    private func evict(_ connection: LoopConnection, at now: Moment) {
        context.limits.handOver(from: connection.limitedKey)
        connection.limitedKey = nil
        connection.evicted = true
        context.refusals.note(.evicted, at: now)
        ConnectionMetrics.shared.evicted.increment()
        // It says why while it closes, if even that has room; otherwise
        // it goes without a word.
        guard context.limits.reserveRejected() else {
            connection.admission = nil
            return apply(connection.machine.failed(), to: connection, at: now)
        }
        connection.admission = .rejected
        apply(connection.machine.evict(at: now), to: connection, at: now)
    }

    // MARK: Timers

    private func schedule(_ connection: LoopConnection) {
        guard let deadline = connection.deadline else { return }
        if let queued = connection.queuedDeadline, queued <= deadline { return }
        timers.push(deadline, token: connection.token)
        connection.queuedDeadline = deadline
    }

    private func fireTimers(at now: Moment) {
        while let entry = timers.popDue(at: now) {
            guard let connection = connection(for: entry.token), connection.queuedDeadline == entry.moment else { continue }
            connection.queuedDeadline = nil
            guard let deadline = connection.deadline else { continue }
            if deadline <= now {
                apply(connection.machine.timerFired(at: now), to: connection, at: now)
            } else {
                schedule(connection)
            }
        }
    }

    // MARK: Stopping

    private func beginStop(at now: Moment) {
        stopping = true
        context.refusals.flush(at: now)
        unwatchListeners()
        acceptPausedUntil = nil
        listenersDetached.signal()
        for case let connection? in slots {
            // What the kernel already holds counts as received: enough for
            // the largest message, not a pipelining client's megabytes.
            var reads = 0
            while reads < 2, connection.machine.phase == .open, connection.machine.isReading, hasInput(connection) {
                read(connection, at: now)
                reads += 1
            }
            guard connection.machine.phase != .closed else { continue }
            apply(connection.machine.stop(at: now), to: connection, at: now)
        }
    }

    private func hasInput(_ connection: LoopConnection) -> Bool {
        var entry = pollfd(fd: connection.socket.fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }
}
