import BlogCore
import Foundation
import Testing
import BlogSQLite

/// Floods the real `blogd` binary, so the memory measured is the server's
/// alone (read from `/proc/PID/status`).
@Suite(.serialized)
struct BinaryFloodTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-flood-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var db: String { folder.appendingPathComponent("data/blog.sqlite").path }

    func serve(_ extra: [String: String] = [:]) throws -> BlogdProcess {
        try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", db,
                          "--public", folder.appendingPathComponent("public").path],
                         environment: environment.merging(extra) { $1 })
    }

    /// Server memory as `peak/resident` in MB, for the printed report.
    func shown(_ memory: (peak: Int, resident: Int)?) -> String {
        guard let memory else { return "?" }
        return String(format: "VmHWM %.1f MB, VmRSS %.1f MB", Double(memory.peak) / 1024, Double(memory.resident) / 1024)
    }

    @Test func idleConnectionsAndVanishingClients() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let idleCount = 1000, vanishCount = 500
        #expect(raiseOpenFileLimit() >= UInt64(idleCount + vanishCount + 100))
        // A read timeout no busy machine can reach while the test runs: the
        // timeout itself is tested on a manual clock (FloodTests); here the
        // server's own memory is.
        let server = try serve(["BLOGD_MAX_CONNECTIONS": "2000", "BLOGD_MAX_CONNECTIONS_PER_ADDRESS": "2000",
                                "BLOGD_READ_TIMEOUT": "600"])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let quiet = try #require(server.openSocketCount)
        #expect(try exchange("register:flood:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("login:flood:pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:flood:warm:up[E];", port: port) == "post:OK[E];")
        // The server closes a connection once its client has closed: let the
        // last ones go before counting (a socket the warm-up opened for good
        // only makes this wait its minute).
        _ = server.waitUntil(timeout: 60) { (server.openSocketCount ?? .max) <= quiet }
        let baseSockets = try #require(server.openSocketCount)
        let before = try #require(server.memoryKB())

        // 1,000 connections that send nothing.
        var idle: [WireConnection] = []
        defer { idle.forEach { $0.close() } }
        for _ in 0..<idleCount { idle.append(try WireConnection(port: port, timeout: 60)) }
        #expect(server.waitUntil(timeout: 60) { (server.openSocketCount ?? 0) >= baseSockets + idleCount },
                "the server holds \(server.openSocketCount ?? -1) sockets, wanted \(baseSockets + idleCount)")

        // While they are open, a new client is served at once.
        let started = Date()
        #expect(try exchange("register:fresh:pw[E];", port: port) == "reg:OK[E];")
        let registerSeconds = Date().timeIntervalSince(started)
        #expect(try exchange("newpost:fresh:busy:day[E];", port: port) == "post:OK[E];")
        let peak = try #require(server.memoryKB())

        // The idle clients leave: the server lets go of every one.
        idle.forEach { $0.close() }
        idle = []
        #expect(server.waitUntil(timeout: 60) { (server.openSocketCount ?? .max) <= baseSockets },
                "\(server.openSocketCount ?? -1) sockets still open, \(baseSockets) before")
        let afterIdle = try #require(server.memoryKB())

        // 500 clients that connect and vanish: half close, half reset.
        for n in 0..<vanishCount {
            let connection = try WireConnection(port: port)
            if n % 2 == 0 { connection.close() } else { connection.reset() }
        }
        #expect(server.waitUntil(timeout: 60) { (server.openSocketCount ?? .max) <= baseSockets },
                "\(server.openSocketCount ?? -1) sockets still open after the vanishing clients, \(baseSockets) before")
        #expect(try exchange("login:flood:pw[E];", port: port) == "log:OK[E];")
        let after = try #require(server.memoryKB())
        #expect(server.stop() == 0)
        server.waitUntil(timeout: 60) { server.stderr.contains("stopped") }

        // The audit log: a line per request, none for the clients that sent
        // nothing and left.
        let replies = server.requestLines.map { line in line.firstMatch(of: /reply=(\S+)/).map { String($0.1) } ?? "?" }
        #expect(replies.count == 6, "\(Dictionary(grouping: replies) { $0 }.mapValues(\.count))")

        print("""
            blogd flood: before \(shown(before)); \(idleCount) idle connections open: \(shown(peak)) \
            (+\(String(format: "%.1f", Double(peak.resident - before.resident) / Double(idleCount))) kB each); \
            after they left: \(shown(afterIdle)); after \(vanishCount) connect-and-vanish: \(shown(after)); \
            register beside them \(Int(registerSeconds * 1000)) ms
            """)
        #expect(peak.peak < 200 * 1024, "peak resident size \(peak.peak) kB")
    }

    @Test func tenMegabyteMessageIsRefusedWithoutBeingHeld() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try serve()
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(try exchange("register:big:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("newpost:big:warm:up[E];", port: port) == "post:OK[E];")
        let before = try #require(server.memoryKB())

        // A post of 10 MB, terminator and all: refused once past 64 KiB;
        // the server discards the rest as it arrives.
        let tenMB = 10 * 1024 * 1024
        let connection = try WireConnection(port: port)
        let message = Array("newpost:big:Huge:".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: tenMB) + Array("[E];".utf8)
        let sent = connection.sendAll(message)
        #expect(try connection.readReply() == "err:SIZE[E];")
        connection.close()
        let after = try #require(server.memoryKB())
        #expect(server.stop() == 0)

        let store = try SQLiteStore(path: db, create: false, readOnly: true)
        defer { try? store.close() }
        let user = try #require(try store.user(named: "big"))
        #expect(try store.posts(ofUserID: try #require(user.id)).map(\.title) == ["warm"], "nothing of it is stored")
        let grownKB = after.peak - before.peak
        print("blogd 10 MB message: \(sent) bytes sent, server VmHWM \(before.peak) kB -> \(after.peak) kB (+\(grownKB) kB)")
        #expect(grownKB < 2 * 1024, "the peak resident size grew by \(grownKB) kB for a 10 MB message")
    }
}
