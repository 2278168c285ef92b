import BlogSockets
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The blogd that `blogbench fanout` starts and stops: `serve` on free
/// ports of 127.0.0.1, with the page server and ActivityPub on and
/// outgoing requests allowed to loopback (the farm is there), its log
/// read by a thread of our own for the ports it names.
final class FanoutServer: Sendable {
    let process: Process
    let folder: URL
    let port: Int
    let httpPort: Int
    /// `/metrics`.
    let metricsPort: Int
    private let log: LogBuffer

    var database: String { folder.appendingPathComponent("blog.sqlite").path }
    var pid: Int32 { process.processIdentifier }

    /// Starts `binary` on a new database in `folder`, with `settings`
    /// (`BLOGD_*` variables) over the bench's own.
    init(binary: String, folder: URL, settings: [String: String]) throws(BenchFailure) {
        self.folder = folder
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        // Ports picked here: at the warning level (the bench's, so that the
        // log costs nothing) blogd does not say which it took.
        let (port, httpPort, metricsPort) = (Self.freePort(), Self.freePort(), Self.freePort())
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", String(port), "--http", String(httpPort),
                             "--metrics", String(metricsPort),
                             "--db", folder.appendingPathComponent("blog.sqlite").path,
                             "--public", folder.appendingPathComponent("public").path]
        var environment = ["PATH": "/usr/bin:/bin", "BLOGD_WEB_CLIENT": "true", "BLOGD_OUTGOING_ALLOW_PRIVATE": "true",
                           "BLOGD_LOG_LEVEL": "warning"]
        environment.merge(settings) { $1 }
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let log = LogBuffer()
        do {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
            try process.run()
        } catch {
            throw BenchFailure(message: "cannot start \(binary): \(error)")
        }
        // A thread blocked in read(2), not a readability handler: the log
        // must be drained for as long as blogd writes it.
        let fd = errors.fileHandleForReading.fileDescriptor
        let reader = Thread {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                log.append(String(decoding: chunk[0..<count], as: UTF8.self))
            }
        }
        reader.start()
        let deadline = Date().addingTimeInterval(120)
        var up = false
        while Date() < deadline, process.isRunning, !up {
            up = Self.answers(port) && Self.answers(httpPort) && Self.answers(metricsPort)
            if !up { usleep(50_000) }
        }
        guard up else {
            if process.isRunning { process.terminate() }
            throw BenchFailure(message: "blogd did not start: \(log.text.suffix(2000))")
        }
        self.process = process
        self.log = log
        self.port = port
        self.httpPort = httpPort
        self.metricsPort = metricsPort
    }

    /// A port of 127.0.0.1 free a moment ago.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 ? getsockname(fd, pointer, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func answers(_ port: Int) -> Bool {
        guard let address = try? SocketAddress(ip: "127.0.0.1", port: port),
              let socket = try? Socket.connect(to: address, until: Deadline(seconds: 1)) else { return false }
        socket.close()
        return true
    }

    /// What blogd logged so far (warnings and worse).
    var logText: String { log.text }

    /// SIGTERM, and its exit status once it is gone (nil: it had to be killed after 30 s).
    func stop() -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }
}

/// Text a reader thread adds to and others read.
final class LogBuffer: Sendable {
    private let value = Mutex("")

    func append(_ text: String) { value.withLock { $0 += text } }
    var text: String { value.withLock { $0 } }
}
