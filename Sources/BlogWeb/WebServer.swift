import FlyingFox
import FlyingSocks
import Foundation
import Logging

/// The public folder over HTTP: `blogd serve --http PORT`.
public final class WebServer: Sendable {
    /// Why the web server could not start.
    public enum StartError: Error, Equatable, Sendable, CustomStringConvertible {
        case badHost(String)
        case cannotListen(host: String, port: Int, reason: String)

        public var description: String {
            switch self {
            case .badHost(let host): "HTTP: cannot listen on '\(host)': give an IPv4 or IPv6 address, localhost or *"
            case .cannotListen(let host, let port, let reason): "HTTP: cannot listen on \(host):\(port): \(reason)"
            }
        }
    }

    private let server: HTTPServer
    private let task: Task<Void, any Error>
    /// The port it listens on (the real one when asked for 0).
    public let port: Int

    /// Starts serving `folder` on `host` (`*` for every address) and
    /// `port`; returns once it listens.
    public init(folder: URL, host: String, port: Int, logger: Logger) async throws(StartError) {
        let address: any SocketAddress
        do {
            switch host {
            case "*": address = sockaddr_in6.inet6(port: UInt16(port))
            case "localhost": address = try sockaddr_in.inet(ip4: "127.0.0.1", port: UInt16(port))
            case _ where host.contains(":"): address = try sockaddr_in6.inet6(ip6: host, port: UInt16(port))
            default: address = try sockaddr_in.inet(ip4: host, port: UInt16(port))
            }
        } catch {
            throw .badHost(host)
        }
        let server = HTTPServer(address: address, logger: SwiftLogBridge(logger: logger),
                                handler: PublicFolderHandler(folder: folder))
        let task = Task { try await server.run() }
        do {
            try await server.waitUntilListening(timeout: 5)
        } catch {
            task.cancel()
            // run() ended with the reason bind or listen failed.
            let reason: String
            switch await task.result {
            case .failure(let failure): reason = "\(failure)"
            case .success: reason = "stopped"
            }
            throw .cannotListen(host: host, port: port, reason: reason)
        }
        self.server = server
        self.task = task
        switch await server.listeningAddress {
        case .ip4(_, let bound), .ip6(_, let bound): self.port = Int(bound)
        default: self.port = port
        }
    }

    /// Stops listening and lets open requests finish (up to `timeout` s;
    /// FlyingFox's socket pool runs until cancelled, so it always takes
    /// that long).
    public func stop(timeout: Double = 0.5) async {
        await server.stop(timeout: timeout)
        _ = await task.result
    }
}

/// FlyingFox's log lines, routed into swift-log below `info` so the audit
/// log of the blog protocol stays the main story.
struct SwiftLogBridge: FlyingSocks.Logging {
    let logger: Logger

    func logDebug(_ debug: @autoclosure () -> String) { logger.trace("\(debug())") }
    func logInfo(_ info: @autoclosure () -> String) { logger.debug("\(info())") }
    func logWarning(_ warning: @autoclosure () -> String) { logger.warning("\(warning())") }
    func logError(_ error: @autoclosure () -> String) { logger.error("\(error())") }
    func logCritical(_ critical: @autoclosure () -> String) {
        let message = critical()
        // stop() ends FlyingFox's run loop by cancelling it, which it
        // reports as a critical error: at shutdown it is the normal end.
        if message.contains("CancellationError") {
            logger.debug("\(message)")
        } else {
            logger.critical("\(message)")
        }
    }
}
