import BlogSockets
import BlogWire

/// What a run measured, with the address it measured.
struct BenchResult: Sendable {
    let address: String
    let stats: ClientStats
    /// Wall time of the measured phase, until the last client finished.
    let seconds: Double
}

/// Runs the phases: probe, prepare, warm up, measure.
struct Runner {
    let options: BenchOptions
    let workload: Workload

    func run() throws(BenchFailure) -> BenchResult {
        let address = try probe()
        let seed = UInt64.random(in: .min ... .max)
        let clients = (0..<options.clients).map {
            BenchClient(index: $0, address: address, keepAlive: options.keepAlive, timeout: options.timeout,
                        workload: workload, seed: seed)
        }

        if workload.needsUsers {
            let posts = workload.prefillPosts > 0 ? ", \(workload.prefillPosts) posts each" : ""
            status("preparing \(plural(clients.count, "user")) \(workload.prefix)u0...\(workload.prefix)u\(clients.count - 1)\(posts)")
            let failures = Collector<String>()
            onThreads(clients, name: "prepare") { client in
                do throws(BenchFailure) { try client.prepare() } catch { failures.add(error.message) }
            }
            let all = failures.all
            if let first = all.first {
                throw BenchFailure(message: first + (all.count > 1 ? " (and \(all.count - 1) more clients failed)" : ""))
            }
        }

        if options.warmup > 0 {
            status("warming up for \(Report.number(options.warmup)) s")
            let deadline = monotonicNanoseconds() + UInt64(options.warmup * 1e9)
            onThreads(clients, name: "warmup") { _ = $0.run(until: deadline, tickets: nil) }
        }

        let bound = options.measuredSeconds.map { "\(Report.number($0)) s" } ?? "\(options.requests!) requests"
        status("measuring \(bound): \(options.op.rawValue), \(plural(clients.count, "client")), "
               + (options.keepAlive ? "keep-alive" : "one connection per request"))
        let results = Collector<ClientStats>()
        let start = monotonicNanoseconds()
        let deadline = options.measuredSeconds.map { start + UInt64($0 * 1e9) }
        let tickets = options.requests.map(Tickets.init)
        onThreads(clients, name: "client") { results.add($0.run(until: deadline, tickets: tickets)) }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9

        var total = ClientStats()
        for stats in results.all { total.merge(stats) }
        return BenchResult(address: address.description, stats: total, seconds: seconds)
    }

    /// Checks the server answers before any load: an unknown command must
    /// get `err:CMD`, which changes nothing on the server. Also checks the
    /// connection mode matches the server's, which would otherwise show up
    /// as nothing but timeouts. Returns the address that answered.
    private func probe() throws(BenchFailure) -> SocketAddress {
        let addresses: [SocketAddress]
        do {
            // Resolved once, so measured requests pay for connecting, never
            // for name lookup.
            addresses = try AddressResolver.resolve(host: options.host, port: options.port)
        } catch {
            throw BenchFailure(message: error.description)
        }
        var reasons: [String] = []
        for address in addresses {
            let connection: WireConnection
            do throws(WireError) {
                connection = try WireConnection(to: address, timeout: options.timeout)
            } catch {
                reasons.append("\(address): \(error.message)")
                continue
            }
            var replies: [[UInt8]] = []
            do throws(WireError) {
                let probe = Workload.encode("bench", "probe")
                try connection.send(probe)
                replies.append(try connection.receiveMessage())
                if options.keepAlive {
                    try connection.send(probe)
                    replies.append(try connection.receiveMessage())
                } else {
                    // One connection per request: the server must close
                    // after its reply, as the original client waits for that.
                    try connection.setTimeouts(min(options.timeout, 3))
                    try connection.waitForClose()
                }
            } catch {
                let oneReplyOnly = replies.count == 1
                switch error {
                case .closedBeforeReply where options.keepAlive && oneReplyOnly, .reset where options.keepAlive && oneReplyOnly:
                    throw BenchFailure(message: "\(address) closed the connection after one reply: run the server with keep_alive on (BLOGD_KEEP_ALIVE=true), or drop --keep-alive")
                case .timeout where !options.keepAlive && oneReplyOnly:
                    throw BenchFailure(message: "\(address) kept the connection open after its reply (keep_alive on?): use --keep-alive")
                default:
                    throw BenchFailure(message: "\(address) did not answer the probe: \(error.message)")
                }
            }
            for body in replies {
                let text = BenchClient.text(body)
                guard Reply(rawValue: text) == .unknownCommand else {
                    throw BenchFailure(message: "\(address) answered the probe with '\(text)', not err:CMD: is it a blogd server?")
                }
            }
            return address
        }
        throw BenchFailure(message: "cannot reach \(options.host) port \(options.port): " + reasons.joined(separator: "; "))
    }
}
