import ArgumentParser
import BlogSockets
import Foundation

/// `blogbench churn`: connections opened and torn down in every way a
/// client can, as fast as the threads go, to prove the server survives
/// connection churn (the old Dispatch-based one crashed under it) and lets
/// go of every connection afterwards.
struct Churn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "churn",
        abstract: "Connection churn: connect, reset, half-close, garbage, from many threads; checks the server survives.",
        discussion: """
            Each thread opens connection after connection until the duration \
            is over, each one of the next kind in turn:

            \(ChurnKind.allCases.enumerated().map { "  \($0.offset + 1). \($0.element.rawValue): \($0.element.summary)" }.joined(separator: "\n"))

            A connection fails on a connect error, a reset or timeout where a \
            reply was due, or a reply other than the one due; err:BUSY is \
            counted apart as busy, and the slowest connection of each kind is \
            shown, so a slow server shows as slow before it shows as timeouts. \
            Half-closing clients keep their ports in TIME_WAIT: against \
            another machine (not loopback) ports may run out, which shows as \
            connect EADDRNOTAVAIL. With --server-pid, the server's open \
            descriptors (all, and sockets), resident memory (VmRSS) and peak \
            (VmHWM) are read from /proc before and after the run; "after" \
            waits until its sockets are back to their count before, at most \
            10 s, since the server lingers a few seconds on closing \
            connections. (Sockets, not all descriptors: the database pool \
            opens reader files on first demand and keeps them.)

            Exit status: 0 when the run is over, whatever it counted \
            (failures and busy replies are reported, not fatal: a limit is not \
            a crash); 1 when the server cannot be reached at the start, or, \
            with --server-pid, when the server died or its sockets did not \
            come back within 10 s.
            """
    )

    @Option(help: "Server host name or address (IPv4 or IPv6).")
    var host = "127.0.0.1"

    @Option(help: "Server TCP port.")
    var port = 51515

    @Option(help: "Concurrent threads, each opening one connection at a time.")
    var threads = 16

    @Option(help: ArgumentHelp("Seconds to churn.", valueName: "seconds"))
    var duration: Double = 60

    @Option(help: ArgumentHelp("The server's process id: read its descriptors and memory from /proc before and after, and check it survived.",
                               valueName: "pid"))
    var serverPid: Int32?

    @Option(help: ArgumentHelp("Seconds each connection may take, connect to close; longer counts as a timeout failure.",
                               valueName: "seconds"))
    var timeout: Double = 10

    @Flag(help: "The server runs with keep_alive on: two pipelined messages then get two replies (and the garbage err:ARGS), not one.")
    var keepAlive = false

    @Flag(help: "Print one JSON object (keys sorted) instead of the table.")
    var json = false

    mutating func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535.") }
        guard (1...4096).contains(threads) else { throw ValidationError("--threads must be 1...4096.") }
        guard duration > 0 else { throw ValidationError("--duration must be positive.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        if let serverPid, !(serverPid > 0 && ProcessProbe(pid: serverPid).isAlive) {
            throw ValidationError("--server-pid: no running process \(serverPid).")
        }
    }

    func run() throws {
        let probe = serverPid.map(ProcessProbe.init)
        let before: ProcessSnapshot?
        do {
            before = try probe?.snapshot()
        } catch {
            throw fail("\(error)")
        }
        let address = try reachableAddress()

        status("churning \(address) for \(Report.number(duration)) s from \(plural(threads, "thread")), \(ChurnKind.allCases.count) connection kinds")
        let loops = (0..<threads).map { ChurnLoop(address: address, timeout: timeout, keepAlive: keepAlive, firstKind: $0) }
        let results = Collector<ChurnStats>()
        let start = monotonicNanoseconds()
        let end = start + UInt64(duration * 1e9)
        onThreads(loops, name: "churn") { results.add($0.run(until: end)) }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        var stats = ChurnStats()
        for part in results.all { stats.merge(part) }

        var watch: ServerWatch?
        if let probe, let before {
            status("waiting up to \(Report.number(ServerWatch.settleLimit)) s for the server's sockets to come back to \(before.sockets)")
            watch = ServerWatch.finish(probe, before: before)
        }
        let report = ChurnReport(host: host, port: port, address: address.description, threads: threads,
                                 keepAlive: keepAlive, timeout: timeout, duration: duration, seconds: seconds,
                                 stats: stats, server: watch)
        print(json ? report.json() : report.table())
        if let watch, !watch.healthy {
            status(watch.alive ? "the server's sockets did not come back" : "the server died")
            throw ExitCode.failure
        }
    }

    /// The first address of `host` where a server answers an empty
    /// half-close, so a typo in the port fails at once instead of as a
    /// run of nothing but connect failures.
    private func reachableAddress() throws -> SocketAddress {
        let addresses: [SocketAddress]
        do {
            addresses = try AddressResolver.resolve(host: host, port: port)
        } catch {
            throw fail(error.description)
        }
        var reasons: [String] = []
        for address in addresses {
            switch ChurnKind.emptyHalfClose.exercise(address, timeout: timeout, keepAlive: keepAlive) {
            case .ok, .busy: return address
            case .failed(let failure): reasons.append("\(address): \(failure.reason)")
            }
        }
        throw fail("cannot reach \(host) port \(port): " + reasons.joined(separator: "; "))
    }

    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("blogbench churn: \(message)\n".utf8))
        return .failure
    }
}
