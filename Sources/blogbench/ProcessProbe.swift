import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A process's open descriptors and memory at one moment, from /proc.
struct ProcessSnapshot: Sendable, Equatable {
    /// Entries of /proc/PID/fd.
    let openFiles: Int
    /// Those of them that are sockets: the listeners and the connections.
    let sockets: Int
    /// Resident memory now (`VmRSS`), in kB.
    let rssKB: Int
    /// Peak resident memory so far (`VmHWM`), in kB.
    let hwmKB: Int
}

/// Why /proc could not tell.
enum ProbeError: Error, CustomStringConvertible {
    /// The process is gone (or was never there).
    case noProcess(pid: Int32)
    /// /proc answered, but not what was expected.
    case unreadable(path: String, reason: String)

    var description: String {
        switch self {
        case .noProcess(let pid): "no process \(pid)"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}

/// Reads another process's state from /proc (Linux only).
struct ProcessProbe: Sendable {
    let pid: Int32

    /// Whether the process still runs. A zombie (exited, not yet reaped by
    /// its parent) answers `kill(pid, 0)` but is dead, so its state counts too.
    var isAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        let state = Self.field("State", in: status)?.first
        return state != "Z" && state != "X"
    }

    func snapshot() throws(ProbeError) -> ProcessSnapshot {
        let path = "/proc/\(pid)/status"
        let status: String
        do {
            status = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw isAlive ? .unreadable(path: path, reason: "\(error)") : .noProcess(pid: pid)
        }
        // A zombie has no memory lines, and no descriptors either.
        guard let rss = Self.kilobytes("VmRSS", in: status), let hwm = Self.kilobytes("VmHWM", in: status) else {
            throw isAlive ? .unreadable(path: path, reason: "no VmRSS/VmHWM") : .noProcess(pid: pid)
        }
        let (files, sockets) = try openFiles()
        return ProcessSnapshot(openFiles: files, sockets: sockets, rssKB: rss, hwmKB: hwm)
    }

    /// The open descriptors, and how many of them are sockets.
    func openFiles() throws(ProbeError) -> (all: Int, sockets: Int) {
        let path = "/proc/\(pid)/fd"
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw isAlive ? .unreadable(path: path, reason: "\(error)") : .noProcess(pid: pid)
        }
        // A descriptor closed since the listing has no link left: not counted.
        let sockets = entries.count(where: { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(path)/\(entry)"))?.hasPrefix("socket:") == true
        })
        return (entries.count, sockets)
    }

    /// Polls the open sockets until they are at most `target`, or `seconds`
    /// have passed; returns how long the wait took.
    ///
    /// The server keeps a closing connection for up to its linger time
    /// (5 s by default) while the peer's last bytes drain, so sockets come
    /// back some seconds after the load stops, not at once.
    func waitForSockets(atMost target: Int, within seconds: Double) -> Double {
        waitForSockets(within: seconds) { $0 <= target }
    }

    /// Polls the open sockets until they are at least `target`, or `seconds`
    /// have passed; returns how long the wait took.
    func waitForSockets(atLeast target: Int, within seconds: Double) -> Double {
        waitForSockets(within: seconds) { $0 >= target }
    }

    private func waitForSockets(within seconds: Double, until done: (Int) -> Bool) -> Double {
        let start = monotonicNanoseconds()
        let end = start + UInt64(seconds * 1e9)
        while true {
            let sockets = (try? openFiles())?.sockets
            let now = monotonicNanoseconds()
            if sockets == nil || done(sockets!) || now >= end { return Double(now - start) / 1e9 }
            usleep(50_000)
        }
    }

    /// The value of a `Name:\tvalue` line of /proc/PID/status.
    static func field(_ name: String, in status: String) -> Substring? {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).drop { $0 == " " || $0 == "\t" }
        }
        return nil
    }

    /// A `Name:   1234 kB` field of /proc/PID/status, in kB.
    static func kilobytes(_ name: String, in status: String) -> Int? {
        field(name, in: status)?.split(separator: " ").first.flatMap { Int($0) }
    }
}
