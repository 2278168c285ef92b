import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// Idle connections, as many as `target`, opened and held without a word;
/// any the server closes is opened again. One thread and `poll` over all
/// of them: a thread per connection would cost this machine more than the
/// server.
struct ConnectionHolder: Attacker {
    let route: Route
    let target: Int
    /// Seconds a connect may take; a server not accepting shows as connect timeouts.
    let timeout: Double

    var threads: Int { 1 }

    /// Connects under way at once: enough to fill the target in a moment,
    /// few enough not to look like a SYN flood.
    static let maxConnecting = 64

    private struct Slot {
        let socket: Socket
        /// Monotonic ns when the connect began; nil once connected.
        var connectingSince: UInt64?
        /// Whether the server has said anything on it yet.
        var heard = false
    }

    func run(thread: Int, window: AttackWindow) -> AttackTally {
        var tally = AttackTally()
        var slots: [Slot] = []
        slots.reserveCapacity(target)
        var pauseUntil: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !window.isOver {
            var connecting = slots.count(where: { $0.connectingSince != nil })
            while slots.count < target, connecting < Self.maxConnecting, monotonicNanoseconds() >= pauseUntil {
                switch startConnect() {
                case .started(let slot):
                    slots.append(slot)
                    if slot.connectingSince != nil { connecting += 1 } else { tally.add("opened") }
                case .failed(let failure):
                    tally.add("failed \(failure.reason)")
                    // Out of ports or refused: try again shortly, not in a spin.
                    pauseUntil = monotonicNanoseconds() + 10_000_000
                }
            }
            var fds = slots.map { pollfd(fd: $0.socket.fd, events: Int16($0.connectingSince != nil ? POLLOUT : POLLIN), revents: 0) }
            let waitMs = min(50, Int32(window.secondsLeft * 1000) + 1)
            _ = poll(&fds, nfds_t(fds.count), waitMs)
            let now = monotonicNanoseconds()
            var kept: [Slot] = []
            kept.reserveCapacity(slots.count)
            for (var slot, entry) in zip(slots, fds) {
                if let since = slot.connectingSince {
                    if entry.revents != 0 {
                        let error: Int32 = (try? slot.socket.option(SOL_SOCKET, SO_ERROR)) ?? EIO
                        if error != 0 {
                            tally.add("failed \(ChurnFailure.connect(errno: error).reason)")
                            slot.socket.close()
                            continue
                        }
                        slot.connectingSince = nil
                        tally.add("opened")
                    } else if now - since > UInt64(timeout * 1e9) {
                        tally.add("failed timeout connect")
                        slot.socket.close()
                        continue
                    }
                } else if entry.revents != 0 {
                    if !listen(to: &slot, buffer: &buffer, tally: &tally) {
                        slot.socket.close()
                        continue
                    }
                }
                kept.append(slot)
            }
            slots = kept
            tally.raise("held at peak", to: slots.count(where: { $0.connectingSince == nil }))
        }
        tally.raise("held at end", to: slots.count(where: { $0.connectingSince == nil }))
        slots.forEach { $0.socket.close() }
        return tally
    }

    private enum Start {
        /// Connected at once, or under way (`connectingSince` set).
        case started(Slot)
        case failed(ChurnFailure)
    }

    /// A connect begun without waiting.
    private func startConnect() -> Start {
        let socket: Socket
        do throws(SocketError) {
            socket = try Socket.tcp(family: route.server.family)
        } catch {
            return .failed(ChurnFailure(error))
        }
        do throws(SocketError) {
            try socket.bind(to: route.nextSource())
        } catch {
            socket.close()
            return .failed(ChurnFailure(error))
        }
        do throws(SocketError) {
            // A deadline already passed: connect returns at once, and a
            // connect still under way is left to finish in the background.
            try socket.connect(to: route.server, until: Deadline(seconds: 0))
            return .started(Slot(socket: socket, connectingSince: nil))
        } catch .timedOut {
            return .started(Slot(socket: socket, connectingSince: monotonicNanoseconds()))
        } catch {
            socket.close()
            return .failed(ChurnFailure(error))
        }
    }

    /// Reads what the server sent on a held connection; false once it has
    /// closed it (after a last word or not).
    private func listen(to slot: inout Slot, buffer: inout [UInt8], tally: inout AttackTally) -> Bool {
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try slot.socket.receive(into: raw) }
        }
        switch result {
        case .success(.done(0)):
            tally.add("closed by server")
            return false
        case .success(.done(let count)):
            if !slot.heard {
                slot.heard = true
                tally.add("server said \(Self.firstWords(buffer[0..<count]))")
            }
            return true
        case .success(.wouldBlock):
            return true
        case .failure(let error):
            tally.add("closed by server (\(ChurnFailure(error).reason))")
            return false
        }
    }

    /// The first message (blog port) or line (HTTP) of what the server said.
    static func firstWords(_ bytes: ArraySlice<UInt8>) -> String {
        var end = bytes.endIndex
        if let range = bytes.firstRange(of: Array("[E];".utf8)) { end = range.lowerBound }
        if let range = bytes[..<end].firstRange(of: [13, 10]) { end = range.lowerBound }
        return ReplyText.of(Array(bytes[..<end]))
    }

    func summary(of tally: AttackTally) -> String {
        var parts = [
            "held \(grouped(tally["held at peak"])) of \(grouped(target)) at the peak",
            "\(grouped(tally["held at end"])) at the end",
            "\(grouped(tally["opened"])) opened",
        ]
        let closed = tally.total(startingWith: "closed by server")
        if closed > 0 { parts.append("\(grouped(closed)) closed by the server") }
        parts += tally.entries(startingWith: "server said ").map { "\(grouped($0.count)) \($0.name)" }
        let failures = tally.total(startingWith: "failed ")
        if failures > 0 { parts.append("\(grouped(failures)) connects failed") }
        return parts.joined(separator: ", ")
    }
}
