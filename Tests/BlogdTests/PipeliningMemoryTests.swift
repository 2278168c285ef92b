import BlogSockets
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Clients pipelining cheap requests as fast as they can cannot grow the
/// server's memory without bound (every queue a client can fill is
/// bounded), even when stderr is a pipe nobody reads; and the first
/// SIGTERM still stops it at once.
@Suite(.serialized)
struct PipeliningMemoryTests {
    /// The memory bound the issue names (150 MB). The stop is measured and
    /// printed (1.1 s on a quiet machine, the issue's goal 2 s); the test's
    /// bound is looser, for a loaded machine, yet far below the 15 s and
    /// more that a blocked log pipe used to hold the exit.
    static let maxResidentKB = 150 * 1024
    static let maxStopSeconds = 8.0

    @Test(arguments: [true, false])
    func pipeliningUnknownCommandsKeepsMemoryBounded(clientsRead: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-pipelining-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: ["BLOGD_KEEP_ALIVE": "true", "BLOGD_LOG_LEVEL": "info"],
            stderrReadUntilListening: true)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()

        let running = Atomic<Bool>(true)
        let replyBytes = Atomic<Int>(0)
        let batch = Array(String(repeating: "hello[E];", count: 1000).utf8)
        let threads = (0..<4).map { _ in
            let thread = Thread {
                guard let connection = try? WireConnection(port: port, timeout: 1) else { return }
                defer { connection.reset() }
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while running.load(ordering: .relaxed) {
                    // SO_SNDTIMEO of 1 s: a server that stops reading ends a send.
                    _ = connection.sendAll(batch)
                    guard clientsRead else { continue }
                    let count = chunk.withUnsafeMutableBytes { raw in
                        (try? connection.socket.receive(into: raw)).flatMap { if case .done(let n) = $0 { n } else { nil } } ?? 0
                    }
                    replyBytes.add(count, ordering: .relaxed)
                }
            }
            thread.start()
            return thread
        }
        _ = threads
        // Ten seconds of it, counted by samples of the server's memory.
        var peakKB = 0
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if let memory = server.memoryKB() { peakKB = max(peakKB, memory.resident) }
            usleep(100_000)
        }
        if clientsRead { #expect(replyBytes.load(ordering: .relaxed) > 0, "the clients were answered") }
        #expect(peakKB > 0)
        #expect(peakKB < Self.maxResidentKB, "resident \(peakKB / 1024) MB")

        // Stopped while the clients still pipeline.
        let started = Date()
        let status = server.stop(signal: SIGTERM, timeout: 60)
        let took = Date().timeIntervalSince(started)
        running.store(false, ordering: .relaxed)
        print("pipelining, clients \(clientsRead ? "reading" : "not reading"), stderr unread: peak RSS \(peakKB / 1024) MB, "
              + "\(replyBytes.load(ordering: .relaxed) / 9) replies read, first SIGTERM took \(String(format: "%.2f", took)) s")
        #expect(status == 0)
        #expect(took < Self.maxStopSeconds, "the first SIGTERM took \(took) s")
    }
}
