import BlogLimits
import NIOCore
import NIOHTTP1
import Synchronization

/// The web server's open connections: who may stay when a crowd comes, and
/// the list `stop()` closes (a client that does not read its response keeps
/// its request "in progress" until the timeout).
///
/// Admission is the blog port's rule, `ConnectionLimits` (one rule for
/// every door), so that many addresses holding idle connections cannot
/// lock a reader out (400 idle connections from 20 addresses once made a
/// page take 4.5 s, waiting in the backlog behind a first-come cap):
/// - an address (an IPv6 /64 counts as one) holding `maxPerAddress`
///   connections has its next one closed at once;
/// - past `maxConnections` in all, a newcomer whose address holds at most
///   half its fair share takes the place of the connection idle longest
///   (no request in progress) among addresses holding more than half
///   theirs; otherwise it is closed.
final class OpenConnections: Sendable {
    private struct Entry {
        let channel: any Channel
        let address: AddressKey?
        let idle: IdleMark
    }

    /// Since when a connection has had no request in progress, set by its
    /// own event loop without taking the table's lock (twice a request on
    /// every loop would make that lock the busiest thing in the server).
    final class IdleMark: Sendable {
        /// Uptime nanoseconds plus one while idle; 0 while a request is in
        /// progress.
        private let since = Atomic<UInt64>(NIODeadline.now().uptimeNanoseconds + 1)

        var idleSince: UInt64? {
            let value = since.load(ordering: .relaxed)
            return value == 0 ? nil : value
        }

        func set(idle: Bool) {
            since.store(idle ? NIODeadline.now().uptimeNanoseconds + 1 : 0, ordering: .relaxed)
        }
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Stopping: no newcomer is taken in.
        var closing = false
    }

    /// The counts in all and per address, and the eviction rule.
    let limits: ConnectionLimits
    private let table = Mutex(Table())
    private let counters = Mutex((refused: 0, evicted: 0))
    /// One for each entry: what `drained()` waits on.
    private let open = PendingCount()

    init(maxConnections: Int = .max, maxPerAddress: Int = .max) {
        limits = ConnectionLimits(maxConnections: maxConnections, maxPerAddress: maxPerAddress)
    }

    /// How many are open now.
    var count: Int { table.withLock { $0.entries.count } }

    /// Connections closed at once over the per-address limit, and idle
    /// ones evicted for a newcomer, since the start.
    var refusals: (refused: Int, evicted: Int) { counters.withLock { $0 } }

    /// A handler for a new connection's pipeline that admits it (or closes
    /// it) and keeps it listed while it is open.
    func tracker() -> Tracker { Tracker(registry: self) }

    /// Closes every open connection.
    func closeAll() {
        for entry in table.withLock({ Array($0.entries.values) }) {
            entry.channel.close(promise: nil)
        }
    }

    /// For a stop: takes no newcomer from now on, and asks each open
    /// connection to close once its response in progress is written (an
    /// idle one closes at once; the HTTP pipeline handler does that).
    func quiesce() {
        let channels = table.withLock { table in
            table.closing = true
            return table.entries.values.map(\.channel)
        }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    /// Returns once no connection is open.
    func drained() async {
        await open.drained()
    }

    /// Takes `channel` in, evicting an idle connection if the table is
    /// full; nil when it must be closed instead.
    private func admit(_ channel: any Channel) -> IdleMark? {
        let id = ObjectIdentifier(channel)
        let address = channel.remoteAddress.flatMap(Self.key)
        let mark = IdleMark()
        // Under the table's lock, so that the victim chosen is still open
        // and `quiesce` sees every connection admitted.
        let (admitted, evicted): (Bool, (any Channel)?) = table.withLock { table in
            if table.closing { return (false, nil) }
            var loser: (any Channel)?
            let admission = limits.admit(from: address) {
                guard let chosen = victim(in: table),
                      let entry = table.entries.removeValue(forKey: chosen) else { return false }
                // Its place passes to the newcomer: no release at its close.
                loser = entry.channel
                open.leave()
                limits.handOver(from: entry.address)
                return true
            }
            switch admission {
            case .served:
                table.entries[id] = Entry(channel: channel, address: address, idle: mark)
                open.enter()
                return (true, loser)
            case .rejected:
                // The blog port says `err:BUSY` on such a place; HTTP
                // closes at once, so the place is free again now.
                limits.release(.rejected, from: address)
                return (false, nil)
            case nil:
                return (false, nil)
            }
        }
        counters.withLock {
            if !admitted { $0.refused += 1 }
            if evicted != nil { $0.evicted += 1 }
        }
        evicted?.close(promise: nil)
        guard admitted else { return nil }
        channel.closeFuture.whenComplete { [self] _ in
            table.withLock { table in
                guard let entry = table.entries.removeValue(forKey: id) else { return }
                // Under the table's lock: drained() cannot see an entry
                // gone and the count not yet down.
                open.leave()
                limits.release(.served, from: entry.address)
            }
        }
        return mark
    }

    /// The connection idle longest among those whose address holds more
    /// than half its fair share (`ConnectionLimits.evictable`).
    private func victim(in table: Table) -> ObjectIdentifier? {
        var best: (id: ObjectIdentifier, since: UInt64)?
        for (id, entry) in table.entries {
            guard let since = entry.idle.idleSince, since < best?.since ?? .max,
                  limits.evictable(entry.address) else { continue }
            best = (id, since)
        }
        return best?.id
    }

    /// Whose place a connection takes (`AddressKey`: an IPv6 /64 is one).
    static func key(_ address: SocketAddress) -> AddressKey? {
        switch address {
        case .v4(let v4): withUnsafeBytes(of: v4.address.sin_addr) { AddressKey(ipBytes: $0) }
        case .v6(let v6): withUnsafeBytes(of: v6.address.sin6_addr) { AddressKey(ipBytes: $0) }
        case .unixDomainSocket: nil
        }
    }

    /// Admits the connection when it is set up; marks it busy while a
    /// request is in progress (from its head to its response's end).
    final class Tracker: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart
        let registry: OpenConnections
        /// This connection's, once admitted.
        private var mark: IdleMark?

        init(registry: OpenConnections) {
            self.registry = registry
        }

        func handlerAdded(context: ChannelHandlerContext) {
            mark = registry.admit(context.channel)
            if mark == nil { context.close(promise: nil) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) { mark?.set(idle: false) }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) { mark?.set(idle: true) }
            context.write(data, promise: promise)
        }
    }
}
