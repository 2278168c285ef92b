import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A farm of stub ActivityPub servers on loopback, for delivery tests and
/// `blogbench fanout`: each host a loopback address of its own
/// (`127.B.X.Y`, a free port), with a shared inbox (`/inbox`), actors'
/// inboxes (`/users/NAME/inbox`) and actor documents (`GET /users/NAME`),
/// answering POSTs as its `FarmBehaviour` says. It counts what each host
/// received, the most requests under way at once per host, and can check
/// the senders' HTTP signatures (`FarmSignatureCheck`).
///
///     let farm = try InboxFarm(hosts: 500, behaviour: { $0 == 7 ? .silent : .accept })
///     defer { farm.stop() }
///     farm.hosts[3].sharedInbox          // http://127.1.0.4:PORT/inbox
///     farm.wait(timeout: 60) { $0.accepted >= 500 }
///
/// One SwiftNIO event loop group of its own serves every host.
public final class InboxFarm: Sendable {
    public let hosts: [FarmHost]
    let state: FarmState
    private let group: MultiThreadedEventLoopGroup
    private let listeners: [any Channel]

    /// - Parameters:
    ///   - hosts: how many hosts (at most 64,000).
    ///   - block: the second byte of their addresses (`127.block.X.Y`).
    ///   - threads: the event loops serving them.
    ///   - keepRequests: keep every request read (headers and body), for tests.
    ///   - check: the signatures to check, if any.
    ///   - now: the clock of `.failUntil` (a test's clock).
    ///   - behaviour: each host's behaviour at the start, by index.
    public init(hosts count: Int, block: Int = 1, threads: Int = 1, keepRequests: Bool = false,
                check: FarmSignatureCheck? = nil, now: @escaping @Sendable () -> Date = Date.init,
                behaviour: @escaping (Int) -> FarmBehaviour = { _ in .accept }) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
        let addresses = (0..<count).map { FarmHost.address(of: $0, block: block) }
        let state = FarmState(count: count, behaviours: (0..<count).map(behaviour), keep: keepRequests, check: check,
                              now: now)
        var channels: [any Channel] = []
        do {
            let bound = addresses.enumerated().map { index, address in
                ServerBootstrap(group: group)
                    .serverChannelOption(.backlog, value: 256)
                    .childChannelInitializer { channel in
                        state.opened(channel)
                        return channel.pipeline.configureHTTPServerPipeline().flatMap {
                            channel.pipeline.addHandler(FarmHandler(host: index, state: state))
                        }
                    }
                    .bind(host: address, port: 0)
            }
            for future in bound { channels.append(try future.wait()) }
        } catch {
            channels.forEach { $0.close(promise: nil) }
            try? group.syncShutdownGracefully()
            throw error
        }
        self.hosts = channels.enumerated().map { index, channel in
            FarmHost(index: index, address: addresses[index], port: channel.localAddress?.port ?? 0)
        }
        self.state = state
        self.group = group
        self.listeners = channels
        state.hosts = hosts
    }

    /// Stops listening, closes every connection (held ones too) and the event loops.
    public func stop() {
        for listener in listeners { try? listener.close().wait() }
        state.closeAll()
        try? group.syncShutdownGracefully()
    }

    /// Checks the signatures of the POSTs from now on (nil: no more).
    public func check(_ check: FarmSignatureCheck?) { state.set(check) }

    /// Host `index`'s behaviour from now on.
    public func set(_ behaviour: FarmBehaviour, host index: Int) { state.set(behaviour, host: index) }

    /// Answers (202) the requests `.held` holds at host `index` now.
    public func release(host index: Int) { state.release(host: index) }

    /// What host `index` saw.
    public func record(host index: Int) -> FarmHostRecord { state.record(host: index) }

    /// The whole farm's figures now.
    public var totals: FarmTotals { state.totals }

    /// Why the first signatures that failed the check did (at most 10).
    public var signatureProblems: [String] { state.problems }

    /// Waits until `condition` holds for the farm's figures (it is looked
    /// at on each change), or `timeout` seconds pass; returns whether it held.
    @discardableResult
    public func wait(timeout: Double, until condition: (FarmTotals) -> Bool) -> Bool {
        state.wait(timeout: timeout, until: condition)
    }

    /// Like `wait(timeout:until:)`, for a condition on one host's record.
    @discardableResult
    public func wait(host index: Int, timeout: Double, until condition: (FarmHostRecord) -> Bool) -> Bool {
        state.wait(timeout: timeout) { _ in condition(state.recordUnlocked(host: index)) }
    }
}
