import ArgumentParser
import BlogSockets
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `blogbench idle`: many connections that connect and say nothing, held
/// open together, to see what an idle connection costs the server.
struct Idle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Holds N silent connections open at once and reads the server's memory from /proc.",
        discussion: """
            Opens the connections one after another (the client's own open \
            file limit is raised to its hard limit first), waits until the \
            server holds them all, reads the server's resident memory \
            (VmRSS), then closes them and reads it again. The server needs \
            max_connections above N and a read timeout longer than the run.
            """
    )

    @Option(help: "Server host name or address (IPv4 or IPv6).")
    var host = "127.0.0.1"

    @Option(help: "Server TCP port.")
    var port = 51515

    @Option(help: "Connections to hold open at once.")
    var connections = 10_000

    @Option(help: ArgumentHelp("The server's process id (its memory and sockets come from /proc).", valueName: "pid"))
    var serverPid: Int32

    func run() throws {
        raiseOpenFileLimit()
        let probe = ProcessProbe(pid: serverPid)
        let address = try AddressResolver.resolve(host: host, port: port)[0]
        let before = try probe.snapshot()
        var held: [Socket] = []
        held.reserveCapacity(connections)
        defer { held.forEach { $0.close() } }
        for index in 0..<connections {
            do {
                held.append(try Socket.connect(to: address, until: Deadline(seconds: 10)))
            } catch {
                throw BenchFailure(message: "connection \(index + 1) of \(connections): \(error)")
            }
        }
        // The kernel finishes the handshake before the server accepts.
        let target = before.sockets + connections
        let settle = probe.waitForSockets(atLeast: target, within: 30)
        let open = try probe.snapshot()
        held.forEach { $0.close() }
        held = []
        _ = probe.waitForSockets(atMost: before.sockets, within: 30)
        let after = try probe.snapshot()
        let grown = open.rssKB - before.rssKB
        print("""
            connections   \(connections) (server held \(open.sockets - before.sockets) after \(String(format: "%.1f", settle)) s)
            rss before    \(before.rssKB) kB
            rss open      \(open.rssKB) kB (+\(grown) kB, \(String(format: "%.2f", Double(grown) / Double(connections))) kB each)
            rss after     \(after.rssKB) kB (all closed)
            peak rss      \(after.hwmKB) kB
            """)
    }

    private func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
