import Foundation
import BlogSockets
import BlogWire

/// Everything checked and prepared before the clock starts: the server
/// answers from both addresses, the HTTP port answers, the client's user
/// exists and is logged in, the attacker's users (if any) too.
struct AttackSetUp {
    let blog: SocketAddress
    let http: SocketAddress?
    let client: WellBehavedClient
    let attacker: any Attacker

    static func prepare(_ options: Attack) throws(BenchFailure) -> AttackSetUp {
        let clientSource: SocketAddress
        let attackerSources: [SocketAddress]
        do throws(SocketError) {
            clientSource = try SocketAddress(ip: options.clientAddress, port: 0)
            attackerSources = try SocketAddress(ip: options.attackerAddress, port: 0).following(options.attackerAddresses) ?? []
        } catch {
            throw BenchFailure(message: error.description)
        }
        let blog = try address(options.host, port: options.port, family: clientSource.family)
        try probeBlog(Route(server: blog, source: clientSource), timeout: options.timeout)
        let http = options.httpPort.map { blog.with(port: $0) }
        if let http {
            try probeHTTP(Route(server: http, source: clientSource), timeout: options.timeout)
        }
        if options.kind != .none {
            for source in attackerSources {
                try probeBlog(Route(server: blog, source: source), timeout: options.timeout)
                if let http, options.kind.needsHTTP {
                    try probeHTTP(Route(server: http, source: source), timeout: options.timeout)
                }
            }
        }

        let client = WellBehavedClient(route: Route(server: blog, source: clientSource),
                                       pages: http.map { Route(server: $0, source: clientSource) }, timeout: options.timeout)
        status("setting up: user \(client.user) from \(options.clientAddress)")
        try client.setUp()
        var upload: (photo: [UInt8], token: String)?
        if let path = options.photo, let token = options.token {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw BenchFailure(message: "cannot read the photo \(path)")
            }
            upload = (Array(data), token)
        }
        let attacker = options.kind.attacker(blog: blog, http: http, sources: attackerSources,
                                             connections: options.connections, timeout: options.timeout, upload: upload,
                                             webmentionTarget: options.target)
        if let flood = attacker as? RequestFlood, case .bigPosts(let users, _) = flood.request {
            var random = SplitMix64(seed: 1)
            let size = flood.message(thread: 0, counter: 1, random: &random).count
            status("setting up: users \(users.joined(separator: ", ")) from \(options.attackerAddress);"
                   + " each post is \(grouped(size)) bytes with its terminator, \(grouped(RequestFlood.bigContent.utf8.count)) '\"' of content")
        }
        try attacker.setUp()
        return AttackSetUp(blog: blog, http: http, client: client, attacker: attacker)
    }

    /// The server's first address of the sources' family: a source address
    /// can only connect to its own family.
    private static func address(_ host: String, port: Int, family: Int32) throws(BenchFailure) -> SocketAddress {
        let addresses: [SocketAddress]
        do {
            addresses = try AddressResolver.resolve(host: host, port: port)
        } catch {
            throw BenchFailure(message: error.description)
        }
        guard let address = addresses.first(where: { $0.family == family }) else {
            throw BenchFailure(message: "\(host) has no address of the client address's family")
        }
        return address
    }

    /// An unknown command must get err:CMD: the server is there, speaks the
    /// protocol, and takes connections from this source address.
    private static func probeBlog(_ route: Route, timeout: Double) throws(BenchFailure) {
        switch OneShot.exchange(Frame.encode("bench", ["probe"]), on: route, timeout: timeout) {
        case .reply(Reply.unknownCommand.rawValue): return
        case .reply(let text):
            throw BenchFailure(message: "\(route.server) answered the probe from \(route.source.host) with '\(text)', not err:CMD: is it a blogd server?")
        case .failed(let failure):
            throw BenchFailure(message: "cannot reach \(route.server) from \(route.source.host): \(failure.reason)")
        case .cut:
            throw BenchFailure(message: "cannot reach \(route.server) from \(route.source.host)")
        }
    }

    /// A plain GET must get an HTTP status line.
    private static func probeHTTP(_ route: Route, timeout: Double) throws(BenchFailure) {
        let deadline = Deadline(seconds: timeout)
        let line: String?
        do throws(SocketError) {
            let socket = try route.connect(until: deadline)
            defer { socket.close() }
            try socket.sendAll(Array("GET / HTTP/1.1\r\nHost: blogbench\r\nConnection: close\r\n\r\n".utf8), until: deadline)
            line = try socket.receiveFirstLine(until: deadline)
        } catch {
            throw BenchFailure(message: "cannot reach HTTP at \(route.server) from \(route.source.host): \(ChurnFailure(error).reason)")
        }
        guard let line, line.hasPrefix("HTTP/") else {
            throw BenchFailure(message: "\(route.server) answered GET / with '\(line ?? "nothing")': is it blogd's --http port?")
        }
    }
}
