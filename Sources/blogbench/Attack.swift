import ArgumentParser
import BlogSockets
import BlogWire
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `blogbench attack KIND`: how a well-behaved client fares while one
/// hostile address attacks the server.
struct Attack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attack",
        abstract: "A well-behaved client's latency and failures while another address attacks the server.",
        discussion: """
            After a short set-up, two things run at once for --duration \
            seconds. The well-behaved client, from --client-address, one \
            connection per request as the original app: an unknown command \
            (err:CMD), a 200-byte post under its login lease (post:OK), and \
            every fifth round a login (log:OK), with no pause but the replies; \
            each kind's latency (of ok replies) and failures (no reply, wrong \
            reply, err:BUSY, timeout) are counted apart. And the attacker, \
            from --attacker-address (all of 127/8 is loopback on Linux), one \
            of:

            \(AttackKind.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

            A request still waiting when the time is up is counted as \
            unfinished, not failed. With --server-pid, the server's CPU time \
            during the attack and over --after seconds once everything is \
            closed (a server busy then works for clients that have left), its \
            sockets and memory near the end, and whether it survived, from \
            /proc.

            Exit status: 0 when the run is over, whatever it measured; 1 when \
            the server cannot be reached or the set-up fails.
            """
    )

    @Argument(help: ArgumentHelp("What the attacker does (see above).", valueName: "kind"))
    var kind: AttackKind

    @Option(help: "Server host name or address.")
    var host = "127.0.0.1"

    @Option(help: "The server's blog port.")
    var port = 51515

    @Option(help: ArgumentHelp("The server's HTTP port (blogd serve --http); needed by http-headers and http-idle.", valueName: "port"))
    var httpPort: Int?

    @Option(help: "Local address of the well-behaved client.")
    var clientAddress = "127.0.0.1"

    @Option(help: "Local address of the attacker (the first, with --attacker-addresses).")
    var attackerAddress = "127.0.0.2"

    @Option(help: ArgumentHelp("Addresses the attack comes from: --attacker-address and the ones after it (127.0.0.2, 127.0.0.3, ...); each connection takes the next in turn.",
                               valueName: "n"))
    var attackerAddresses = 1

    @Option(help: ArgumentHelp("Seconds the attack and the client run.", valueName: "seconds"))
    var duration: Double = 10

    @Option(help: ArgumentHelp("Seconds one request (connect to close) may take; longer counts as a timeout failure.",
                               valueName: "seconds"))
    var timeout: Double = 10

    @Option(help: "Connections http-idle and connection-hog try to hold, from all attacker addresses together.")
    var connections = 1_100

    @Option(help: ArgumentHelp("The server's process id: its CPU time, sockets, memory and survival from /proc.", valueName: "pid"))
    var serverPid: Int32?

    @Option(help: ArgumentHelp("With --server-pid: seconds to watch the server's CPU after the attack stopped.", valueName: "seconds"))
    var after: Double = 2

    @Option(help: ArgumentHelp("upload-flood: the photo file to upload.", valueName: "file"))
    var photo: String?

    @Option(help: ArgumentHelp("upload-flood: a Micropub token with the media scope (blogd token NAME --scope media).",
                               valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("webmention-flood: a post page of the server (its URL under base_url), so that each Webmention is accepted and queued; inbox-flood: a post of the server (its page or ActivityPub object) that each Like names.",
                               valueName: "url"))
    var target: String?

    @Flag(help: "Print one JSON object (keys sorted) instead of the table.")
    var json = false

    mutating func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535.") }
        if let httpPort, !(1...65535).contains(httpPort) { throw ValidationError("--http-port must be 1...65535.") }
        if kind.needsHTTP && httpPort == nil { throw ValidationError("\(kind.rawValue) attacks the HTTP port: give --http-port.") }
        if kind == .uploadFlood && (photo == nil || token == nil) {
            throw ValidationError("upload-flood needs --photo FILE and --token TOKEN.")
        }
        guard duration > 0 else { throw ValidationError("--duration must be positive.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        guard after >= 0 else { throw ValidationError("--after must not be negative.") }
        guard (1...60_000).contains(connections) else { throw ValidationError("--connections must be 1...60000.") }
        guard let client = try? SocketAddress(ip: clientAddress, port: 0) else {
            throw ValidationError("--client-address must be a numeric IP address.")
        }
        guard let attacker = try? SocketAddress(ip: attackerAddress, port: 0) else {
            throw ValidationError("--attacker-address must be a numeric IP address.")
        }
        guard client.family == attacker.family else {
            throw ValidationError("--client-address and --attacker-address must both be IPv4 or both IPv6.")
        }
        guard (1...60_000).contains(attackerAddresses) else { throw ValidationError("--attacker-addresses must be 1...60000.") }
        guard let sources = attacker.following(attackerAddresses) else {
            throw ValidationError("--attacker-addresses \(attackerAddresses) from \(attackerAddress) runs past the last address.")
        }
        guard !sources.contains(client) else {
            throw ValidationError("--client-address \(clientAddress) is one of the attacker addresses: the client must come from another.")
        }
        if let serverPid, !(serverPid > 0 && ProcessProbe(pid: serverPid).isAlive) {
            throw ValidationError("--server-pid: no running process \(serverPid).")
        }
    }

    func run() throws {
        raiseOpenFileLimit()
        let setUp: AttackSetUp
        do {
            setUp = try AttackSetUp.prepare(self)
        } catch {
            FileHandle.standardError.write(Data("blogbench attack: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
        let report = measure(setUp)
        print(json ? report.json() : report.table())
    }

    /// The attack and the client at once, and the server watched around them.
    private func measure(_ setUp: AttackSetUp) -> AttackReport {
        let probe = serverPid.map(ProcessProbe.init)
        let bench = ProcessProbe(pid: getpid())
        let before = try? probe?.snapshot()
        let serverStart = probe.map(CPUMark.init)
        let benchStart = CPUMark(bench)

        let attack = kind == .none ? "no attack" : "\(kind.rawValue) from \(attackerDescription)"
        status("\(attack) for \(Report.number(duration)) s, well-behaved client from \(clientAddress)")
        let window = AttackWindow(seconds: duration)
        let threads = ThreadGroup()
        let probeResult = Collector<ProbeResult>()
        let tallies = Collector<AttackTally>()
        let client = setUp.client
        threads.start("client") { probeResult.add(client.run(window: window)) }
        let attacker = setUp.attacker
        for index in 0..<attacker.threads {
            threads.start("attacker-\(index)") { tallies.add(attacker.run(thread: index, window: window)) }
        }

        // What the server holds while the attack is at its height, not
        // after the attacker has let go.
        Thread.sleep(forTimeInterval: max(0, window.secondsLeft - min(0.5, duration / 10)))
        let nearEnd = try? probe?.snapshot()
        threads.join()
        let seconds = Double(monotonicNanoseconds() - window.start) / 1e9
        let serverStop = probe.map(CPUMark.init)
        let benchCPU = benchStart.until(CPUMark(bench))

        var usage: ServerUsage?
        if let probe, let serverStart, let serverStop {
            if after > 0 { status("watching the server for \(Report.number(after)) s after the attack") }
            Thread.sleep(forTimeInterval: after)
            let afterwards = CPUMark(probe)
            usage = ServerUsage(pid: probe.pid, before: before, nearEnd: nearEnd,
                                cpuDuring: serverStart.until(serverStop), secondsDuring: seconds,
                                cpuAfter: serverStop.until(afterwards), secondsAfter: after, alive: probe.isAlive)
        }
        var tally = AttackTally()
        tallies.all.forEach { tally.merge($0) }
        return AttackReport(kind: kind, host: host, port: port, httpPort: httpPort, server: setUp.blog.description,
                            clientAddress: clientAddress, attackerAddress: attackerDescription, clientUser: client.user,
                            duration: duration, timeout: timeout, connections: connections, seconds: seconds,
                            probe: probeResult.all.first ?? ProbeResult(), attacker: attacker, tally: tally,
                            usage: usage, benchCPU: benchCPU)
    }

    /// The attacker's address, or the first and last of its range.
    var attackerDescription: String {
        guard attackerAddresses > 1, let first = try? SocketAddress(ip: attackerAddress, port: 0),
              let last = first.following(attackerAddresses)?.last else { return attackerAddress }
        return "\(attackerAddresses) addresses \(first.host)-\(last.host)"
    }

    /// Holding 1,100 connections needs more descriptors than the usual
    /// soft limit of 1,024.
    private func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
