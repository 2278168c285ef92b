import ArgumentParser
import BlogInboxFarm
import BlogSockets
import BlogWire
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `blogbench fanout`: one post to many followers on many hosts, through
/// the real blogd, while a well-behaved client posts on the blog port.
struct Fanout: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "One post delivered to many followers on a farm of loopback inboxes, and the blog port meanwhile.",
        discussion: """
            Starts an inbox farm (--hosts stub ActivityPub servers, each on a \
            loopback address of its own, 127.B.X.Y), then --blogd on a new \
            database with the page server, ActivityPub and outgoing requests \
            to private addresses on. Two blogs register over the blog port; \
            their actor keys are fetched from blogd (the farm checks every \
            --check-every-th delivery's signature with them); each gets \
            --followers accepted followers, follower i on host i mod --hosts, \
            written straight into the database through the storage API: the \
            first blog's followers name their host's shared inbox (one \
            delivery a host), the second's do not (one delivery a follower).

            A well-behaved client then posts (a new connection each, 200 \
            bytes) for --baseline seconds with no fan-out, and on while each \
            blog posts once: the time from the post to the first and to the \
            last delivery's arrival, blogd's CPU and peak memory, and the \
            client's newpost latency, by phase.
            """
    )

    @Option(help: ArgumentHelp("The blogd binary to start.", valueName: "path"))
    var blogd = ".build/release/blogd"

    @Option(help: "Inbox hosts in the farm.")
    var hosts = 500

    @Option(help: "Followers of each of the two blogs.")
    var followers = 10_000

    @Option(help: ArgumentHelp("Seconds the client posts before any fan-out.", valueName: "seconds"))
    var baseline: Double = 10

    @Option(help: ArgumentHelp("Seconds a fan-out may take before the bench gives up on it.", valueName: "seconds"))
    var timeout: Double = 900

    @Option(help: ArgumentHelp("Check the signature of every n-th delivery.", valueName: "n"))
    var checkEvery = 10

    @Option(help: ArgumentHelp("Hosts (the first ones) that read each delivery and never answer; what they hold is not waited for.",
                               valueName: "n"))
    var silentHosts = 0

    @Option(help: ArgumentHelp("The farm's addresses: 127.BLOCK.X.Y.", valueName: "block"))
    var block = 1

    @Option(help: "Event loop threads of the farm.")
    var farmThreads = 1

    @Option(help: ArgumentHelp("A blogd setting, as its environment variable (BLOGD_OUTGOING_CONCURRENCY=16); repeatable.",
                               valueName: "NAME=VALUE"))
    var set: [String] = []

    @Flag(help: "Print one JSON object (keys sorted) instead of the table.")
    var json = false

    mutating func validate() throws {
        guard (1...64_000).contains(hosts) else { throw ValidationError("--hosts must be 1...64000.") }
        guard followers >= hosts else { throw ValidationError("--followers must be at least --hosts.") }
        guard (2...255).contains(block) || block == 1 else { throw ValidationError("--block must be 1...255.") }
        guard baseline >= 0, timeout > 0 else { throw ValidationError("--baseline and --timeout must be positive.") }
        guard (0..<hosts).contains(silentHosts) else { throw ValidationError("--silent-hosts must be 0...hosts-1.") }
        guard checkEvery >= 1 else { throw ValidationError("--check-every must be at least 1.") }
        for setting in set where !(setting.hasPrefix("BLOGD_") && setting.contains("=")) {
            throw ValidationError("--set \(setting): give BLOGD_NAME=VALUE.")
        }
    }

    var settings: [String: String] {
        Dictionary(set.map { setting in
            let parts = setting.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { $1 })
    }

    func run() throws {
        do {
            let report = try measure()
            print(json ? report.json() : report.table())
        } catch {
            FileHandle.standardError.write(Data("blogbench fanout: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }

    private static let blogs = [(name: "fanshared", prefix: "s", shared: true), (name: "fanpersonal", prefix: "p", shared: false)]
    private static let password = "fan-out-bench"

    private func measure() throws(BenchFailure) -> FanoutReport {
        raiseOpenFileLimit()
        let load = Self.loadAverage()
        status("measuring a signature")
        let signing = FanoutSigning.measure()
        status("starting the farm: \(grouped(hosts)) hosts on 127.\(block).x.y")
        let farm: InboxFarm
        do {
            farm = try InboxFarm(hosts: hosts, block: block, threads: farmThreads,
                                 behaviour: { [silentHosts] in $0 < silentHosts ? .silent : .accept })
        } catch {
            throw BenchFailure(message: "the farm cannot start: \(error)")
        }
        defer { farm.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogbench-fanout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        status("starting \(blogd)")
        let server = try FanoutServer(binary: blogd, folder: folder, settings: settings)
        var stopped = false
        defer { if !stopped { _ = server.stop() } }

        let source: SocketAddress, blogAddress: SocketAddress
        do throws(SocketError) {
            source = try SocketAddress(ip: "127.0.0.1", port: 0)
            blogAddress = try SocketAddress(ip: "127.0.0.1", port: server.port)
        } catch {
            throw BenchFailure(message: error.description)
        }
        let route = Route(server: blogAddress, source: source)
        let http = Route(server: blogAddress.with(port: server.httpPort), source: source)
        let metrics = Route(server: blogAddress.with(port: server.metricsPort), source: source)
        var keys: [String: String] = [:]
        for blog in Self.blogs {
            status("setting up: blog \(blog.name), its key, \(grouped(followers)) followers"
                   + (blog.shared ? " with shared inboxes" : " without shared inboxes"))
            try expect(Frame.encode("register", [blog.name, Self.password]), .registered, on: route)
            try expect(Frame.encode("login", [blog.name, Self.password]), .loggedIn, on: route)
            let key = try FanoutActorKey.fetch(blog: blog.name, http: http, timeout: 60)
            keys[key.id] = key.pem
            try FanoutSeed.followers(of: blog.name, count: followers, on: farm, prefix: blog.prefix, shared: blog.shared,
                                     database: server.database)
        }
        do {
            farm.check(try FarmSignatureCheck(keys: keys, every: checkEvery))
        } catch {
            throw BenchFailure(message: "the actor keys do not parse: \(error)")
        }

        let phases = 1 + Self.blogs.count
        let client = FanoutClient(client: WellBehavedClient(route: route, timeout: 10), phases: phases)
        try client.client.setUp()
        let probe = ProcessProbe(pid: server.pid)
        let memory = FanoutMemory(probe: probe, phases: phases)
        memory.start()
        client.start()
        status("baseline: the client alone for \(Report.number(baseline)) s")
        var results = [FanoutPhase(name: "baseline")]
        let baselineCPU = try? probe.cpuSeconds()
        let baselineStart = monotonicNanoseconds()
        var samples = FanoutInside.samples(metrics: metrics)
        Thread.sleep(forTimeInterval: baseline)
        results[0].seconds = Double(monotonicNanoseconds() - baselineStart) / 1e9
        var now = FanoutInside.samples(metrics: metrics)
        if let samples, let now { results[0].inside = FanoutInside(from: samples, to: now) }
        samples = now
        results[0].cpuSeconds = (try? probe.cpuSeconds()).flatMap { end in baselineCPU.map { end - $0 } }

        for (index, blog) in Self.blogs.enumerated() {
            let phase = index + 1
            var result = FanoutPhase(name: blog.shared ? "shared inboxes" : "personal inboxes")
            // Those to the silent hosts never arrive: not waited for.
            result.deliveries = blog.shared ? hosts - silentHosts : (0..<followers).count(where: { $0 % hosts >= silentHosts })
            client.enter(phase)
            memory.enter(phase)
            status("\(result.name): \(blog.name) posts once, \(grouped(result.deliveries)) deliveries")
            let before = farm.totals
            let cpu = try? probe.cpuSeconds()
            let start = DispatchTime.now().uptimeNanoseconds
            try expect(Frame.encode("newpost", [blog.name, "Fan-out", Workload.text(bytes: WellBehavedClient.postBytes)]),
                       .posted, on: route)
            if farm.wait(timeout: timeout, until: { $0.received > before.received }) {
                result.firstSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
            let all = farm.wait(timeout: timeout) { $0.accepted - before.accepted >= result.deliveries }
            let after = farm.totals
            result.arrived = after.accepted - before.accepted
            result.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if all { result.allSeconds = Double(after.lastAccepted - start) / 1e9 }
            result.cpuSeconds = (try? probe.cpuSeconds()).flatMap { end in cpu.map { end - $0 } }
            now = FanoutInside.samples(metrics: metrics)
            if let samples, let now { result.inside = FanoutInside(from: samples, to: now) }
            samples = now
            status("\(result.name): \(grouped(result.arrived)) arrived in \(Report.number(result.seconds)) s")
            results.append(result)
        }
        let stats = client.stop()
        let peaks = memory.stop()
        for index in results.indices {
            results[index].add(stats[index])
            results[index].peakRSSMB = Double(peaks[index]) / 1024
        }
        let exit = server.stop()
        stopped = true
        let totals = farm.totals
        return FanoutReport(hosts: hosts, followers: followers, cores: ProcessInfo.processInfo.activeProcessorCount,
                            loadAverage: load, signWithParseMicroseconds: signing?.withParse,
                            signOnlyMicroseconds: signing?.signOnly, phases: results,
                            signaturesChecked: totals.verified, signaturesBad: totals.badSignatures,
                            signatureProblems: farm.signatureProblems, checkEvery: checkEvery,
                            peakPerHost: totals.peakPerHost, silentHosts: silentHosts, settings: set.sorted(),
                            exitStatus: exit)
    }

    private func expect(_ message: [UInt8], _ reply: Reply, on route: Route) throws(BenchFailure) {
        switch OneShot.exchange(message, on: route, timeout: 30) {
        case .reply(let text) where text == reply.rawValue: return
        case .reply(let text): throw BenchFailure(message: "got \(text), not \(reply.rawValue)")
        case .failed(let failure): throw BenchFailure(message: "blog port: \(failure.reason)")
        case .cut: throw BenchFailure(message: "blog port: cut off")
        }
    }

    /// The 1, 5 and 15 minute load averages (the machine's other work).
    static func loadAverage() -> [Double] {
        var values = [Double](repeating: 0, count: 3)
        return getloadavg(&values, 3) == 3 ? values : []
    }

    /// Every delivery is a connection of its own, on both sides.
    private func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
