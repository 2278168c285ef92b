import BlogCore
import CLinux
import BlogServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import BlogAuth
#endif

/// Many connections at once, clients that vanish, clients that never read:
/// the server keeps serving others and lets go of every connection.
///
/// The memory figures printed are the whole test process's (server and
/// the tests' own clients together).
@Suite("Floods", .serialized)
struct FloodTests {
    static func memoryReport(_ label: String) -> String {
        "\(label): VmRSS \(Hostile.megabytes(Hostile.residentBytes)), VmHWM (peak) \(Hostile.megabytes(Hostile.peakResidentBytes))"
    }

    // MARK: Idle connections

    /// 1,000 connections that send nothing: a new client is still served
    /// at once, and each idle one gets `err:TIME` after the read timeout
    /// and is closed.
    @Test func thousandIdleConnectionsDoNotBlockOthersAndAllTimeOut() throws {
        let count = 1000
        let readTimeout = 2.0
        let limit = Hostile.raiseOpenFileLimit()
        try #require(limit >= 2 * count + 200, "open file limit \(limit) too low for \(count) connections")
        let f = try ServerFixture {
            $0.maxConnections = 1100
            $0.connection.readTimeout = readTimeout
            $0.connection.lingerTimeout = 1
        }
        defer { f.tearDown() }
        let before = Hostile.residentBytes
        let opened = Date()
        let idle = try (0..<count).map { _ in try f.client(timeout: 60) }
        let connectTime = Date().timeIntervalSince(opened)
        #expect(eventually(timeout: 30) { f.server.connectionCount == count }, "server holds \(f.server.connectionCount)")

        // A real client among them is answered: it does not wait behind them.
        let started = Date()
        #expect(try f.ask("register:Busy:pw[E];") == "reg:OK[E];")
        #expect(try f.ask("login:Busy:pw[E];") == "log:OK[E];")
        let served = Date().timeIntervalSince(started)
        let grown = Hostile.residentBytes - before
        print(Self.memoryReport("\(count) idle connections open (connected in \(String(format: "%.2f", connectTime)) s,"
            + " RSS +\(Hostile.megabytes(grown)), \(grown / count / 1024) KB each; register+login \(String(format: "%.3f", served)) s)"))

        // Not before the timeout...
        f.advance(by: readTimeout - 0.01)
        #expect(!idle[0].hasInput(within: 0.05))
        // ...then a sample reads err:TIME, then the end.
        f.advance(by: 0.01)
        for client in stride(from: 0, to: count, by: 20).map({ idle[$0] }) {
            #expect(try client.readReply() == "err:TIME[E];")
            #expect(client.expectCleanEOF() == .eof)
        }
        // The server closes every one of them itself (after its linger),
        // though the clients never close.
        f.advance(by: 1)
        let closedAll = eventually(timeout: 30) { f.server.connectionCount == 0 }
        #expect(closedAll, "\(f.server.connectionCount) connections still open")
        var wrong: [String] = []
        for (index, client) in idle.enumerated() where index % 20 != 0 {
            let (text, end) = client.readToEnd()
            if text != "err:TIME[E];" || end != .eof { wrong.append("#\(index): \(text.debugDescription) \(end)") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) idle connections ended otherwise: \(wrong.prefix(5))")
        #expect(try f.ask("register:After:pw[E];") == "reg:OK[E];")
    }

    // MARK: Clients that vanish

    /// Connect and close at once, connect and reset half-way through a
    /// message, send a whole message and vanish without reading: from four
    /// threads at once. The server lets go of every connection and serves
    /// the next client normally.
    @Test func vanishingClientsLeaveNoConnectionBehind() throws {
        Hostile.raiseOpenFileLimit()
        let f = try ServerFixture()
        defer { f.tearDown() }
        let port = f.port
        let failures = Locked<[String]>([])
        let workers = (0..<4).map { worker in
            Background {
                func connect() -> TestClient? {
                    do { return try TestClient(port: port, timeout: 60) } catch {
                        failures.withLock { $0.append("connect: \(error)") }
                        return nil
                    }
                }
                // 500 in all: connect, close.
                for _ in 0..<125 { connect()?.close() }
                // 200 in all: half a message, then a reset (SO_LINGER 0).
                for index in 0..<50 {
                    guard let client = connect() else { continue }
                    try? client.send("register:Gone\(worker)x\(index):pass")
                    client.reset()
                }
                // 100 in all: a whole message, then a reset before the reply.
                for index in 0..<25 {
                    guard let client = connect() else { continue }
                    try? client.send("register:Reset\(worker)x\(index):pw[E];")
                    client.reset()
                }
                // 100 in all: a whole message, then a close without reading.
                for _ in 0..<25 {
                    guard let client = connect() else { continue }
                    try? client.send("login:nobody:pw[E];")
                    client.close()
                }
            }
        }
        for worker in workers { #expect(worker.wait(timeout: 60)) }
        #expect(failures.value.isEmpty, "\(failures.value.prefix(5))")
        #expect(eventually(timeout: 60) { f.server.connectionCount == 0 }, "\(f.server.connectionCount) left")
        #expect(try f.ask("register:Survivor:pw[E];") == "reg:OK[E];")
        let names = try f.store.userSummaries().map(\.name)
        #expect(!names.contains { $0.hasPrefix("Gone") }, "a cut-off message was stored")
        #expect(names.contains("Survivor"))
        print(Self.memoryReport("900 vanishing clients"))
    }

    // MARK: Clients that never read

    /// What a client that pipelines without reading managed to send.
    struct Pipelined {
        let client: TestClient
        /// Bytes the kernel took from the client before it stopped sending.
        var sent: Int
        /// Whether the server stopped reading it (its replies piled up).
        var paused: Bool
    }

    static let garbageMessage = Array("bad:x[E];".utf8)
    static let garbageReply = Array("err:CMD[E];".utf8)

    /// Pipelines `bad:x[E];` on a keep-alive connection without reading,
    /// from a thread of its own, until the server leaves the connection
    /// unread (its own backpressure, seen through
    /// `BlogServer.unreadConnections`, not guessed from how long the
    /// kernel took nothing), or `cap` bytes went out. The client's buffers
    /// are small, so what piles up is the server's business.
    static func pipelineWithoutReading(_ f: ServerFixture, cap: Int = 50_000_000) throws -> Pipelined {
        let client = try f.client(timeout: 60, receiveBuffer: 4096)
        Hostile.setSendBuffer(client.fd, 16 * 1024)
        // 7,281 messages a chunk, generated once and sent over and over.
        let chunk = Array([[UInt8]](repeating: garbageMessage, count: 65_536 / garbageMessage.count).joined())
        let sent = Locked(0)
        let stop = Locked(false)
        let sender = Background {
            var offset = 0
            while !stop.value && sent.value < cap {
                guard let n = Hostile.sendWithoutBlocking(client.fd, chunk[offset...]) else { return }
                if n == 0 {
                    _ = Hostile.isWritable(client.fd, within: 0.05)
                    continue
                }
                sent.withLock { $0 += n }
                offset = (offset + n) % chunk.count
            }
        }
        let paused = eventually(timeout: 120) { f.server.unreadConnections == 1 || sent.value >= cap }
            && f.server.unreadConnections == 1
        stop.withLock { $0 = true }
        sender.wait()
        return Pipelined(client: client, sent: sent.value, paused: paused)
    }

    /// A client that never reads its replies: the server stops reading its
    /// requests (so neither its memory nor the client's backlog grows
    /// without bound), still serves others meanwhile, and lets go of the
    /// connection when the client closes.
    @Test func clientThatNeverReadsIsThrottledAndReleased() throws {
        let f = try ServerFixture {
            $0.connection.keepAlive = true
            $0.connection.readTimeout = 30
        }
        defer { f.tearDown() }
        let before = Hostile.residentBytes
        let pipelined = try Self.pipelineWithoutReading(f)
        let messages = pipelined.sent / Self.garbageMessage.count
        print("non-reading client: the kernel took \(Hostile.megabytes(pipelined.sent)) (\(messages) messages) before the server stopped reading")
        #expect(pipelined.paused, "the server read all \(pipelined.sent) bytes without the client reading a reply")

        // Others are served meanwhile, and the paused one stays paused.
        #expect(try f.askOne("register:Other:pw[E];") == "reg:OK[E];")
        #expect(try f.askOne("login:Other:pw[E];") == "log:OK[E];")
        #expect(f.server.unreadConnections == 1)
        // Reported, not checked: other tests in this process move it too.
        // What bounds the server's memory is that it stopped reading.
        print(Self.memoryReport("non-reading client stuck (RSS grew \(Hostile.megabytes(Hostile.residentBytes - before)))"))

        // The client vanishes with its replies unread (a reset): the server
        // notices although it no longer reads from it.
        pipelined.client.close()
        #expect(eventually(timeout: 60) { f.server.connectionCount == 0 }, "\(f.server.connectionCount) left")
        #expect(try f.askOne("register:Later:pw[E];") == "reg:OK[E];")
    }

    /// The same client, once it starts reading, gets every reply, in
    /// order: pausing loses nothing.
    @Test func pausedClientGetsEveryReplyOnceItReads() throws {
        let f = try ServerFixture {
            $0.connection.keepAlive = true
            $0.connection.readTimeout = 30
        }
        defer { f.tearDown() }
        let pipelined = try Self.pipelineWithoutReading(f)
        #expect(pipelined.paused)
        let client = pipelined.client
        let received = Locked(0)
        let garbled = Locked<Int?>(nil)
        let ended = Locked<StreamEnd?>(nil)
        let reader = Background {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let reply = Self.garbageReply
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    ended.withLock { $0 = n == 0 ? .eof : (errno == EAGAIN ? .timedOut : .error(errno)) }
                    return
                }
                let base = received.value
                for index in 0..<n where chunk[index] != reply[(base + index) % reply.count] {
                    garbled.withLock { $0 = $0 ?? base + index }
                    break
                }
                received.withLock { $0 += n }
            }
        }
        // Finish the message cut off by the kernel, then say we are done.
        let partial = pipelined.sent % Self.garbageMessage.count
        if partial > 0 { try client.send(Array(Self.garbageMessage[partial...])) }
        let messages = (pipelined.sent + Self.garbageMessage.count - 1) / Self.garbageMessage.count
        client.halfClose()
        #expect(reader.wait(timeout: 60))
        #expect(ended.value == .eof)
        #expect(garbled.value == nil, "reply bytes out of pattern at \(garbled.value ?? -1)")
        #expect(received.value == messages * Self.garbageReply.count,
                "\(received.value / Self.garbageReply.count) replies for \(messages) messages")
        client.close()
        #expect(eventually(timeout: 60) { f.server.connectionCount == 0 })
        print(Self.memoryReport("paused client read \(messages) replies"))
    }

    // MARK: A flood of logins

    /// Many logins at once, from many connections: the service hashes at
    /// most one password per core at a time, "which bounds memory"
    /// (README). The resident size must show that bound too.
    ///
    /// It does not: each scrypt buffer (128·r·N bytes) is malloc'd and
    /// freed on whichever Dispatch thread runs the connection. After the
    /// first free, glibc raises its mmap threshold to that size, so later
    /// buffers come from the thread's own arena and stay resident when
    /// freed: one buffer kept per arena, up to 8 arenas per core. At
    /// N=2^13 (8 MiB) the process grows by about 80 MB; at the standard
    /// cost (16 MiB) by 150 MB and more. A fixed mmap threshold
    /// (`mallopt(M_MMAP_THRESHOLD, 1 MiB)`, which also turns the dynamic
    /// one off) keeps it at about 8 MB.
    @Test func loginFloodKeepsResidentMemoryBounded() throws {
        let scrypt = ScryptParameters(logN: 13, r: 8, p: 1)
        let f = try ServerFixture(settings: .init(scrypt: scrypt, loginThrottle: .off))
        defer { f.tearDown() }
        #expect(try f.ask("register:alice:right[E];") == "reg:OK[E];")
        // The whole test process is measured, and other suites run beside
        // this one (the photo tests decode 12 MP images on four threads):
        // memory they freed, but malloc kept, must not count as ours.
        _ = clinux_malloc_trim()
        let before = Hostile.residentBytes
        var growth: [Int] = []
        for _ in 1...4 {
            let finished = runOnThreads(16, prepare: { _ in try? f.client() }) { index, client in
                try? client?.send(index % 2 == 0 ? "login:alice:right[E];" : "login:alice:wrong[E];")
                _ = try? client?.readReply()
            }
            #expect(finished)
            _ = clinux_malloc_trim()
            growth.append(Hostile.residentBytes - before)
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // Hashes at once × their buffer, and as much again for slack.
        let bound = max(4 * scrypt.memoryBytes, 2 * cores * scrypt.memoryBytes)
        print(Self.memoryReport("64 logins, \(scrypt) (\(Hostile.megabytes(scrypt.memoryBytes)) a hash):"
            + " RSS grew \(growth.map(Hostile.megabytes)) after each 16"))
        // The least of the rounds: other suites in this process come and go
        // (their servers, caches, photos), while a leak of hash buffers
        // would only grow from round to round and show in every one.
        #expect(growth.min() ?? 0 < bound,
                "64 logins grew the resident size by at least \(Hostile.megabytes(growth.min() ?? 0)); at most \(cores) hashes of \(Hostile.megabytes(scrypt.memoryBytes)) run at once")
    }
}
