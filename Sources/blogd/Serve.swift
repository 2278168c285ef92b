import ArgumentParser
import BlogCore
import BlogLimits
import BlogModel
import BlogServer
import BlogWeb
@preconcurrency import Dispatch
import Foundation
import Logging
import CLinux
import Prometheus
#if canImport(Glibc)
import Glibc
import BlogPages
#endif

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the blog server.",
        discussion: """
            Settings come from, last wins: the defaults, the JSON config file, \
            the BLOGD_* environment variables, then these options. The keys:

            \(ConfigKeys.helpTable)
            """)

    @OptionGroup var data: DataOptions
    @Option(help: ArgumentHelp("Address to listen on; * for every address (default: *; BLOGD_HOST).", valueName: "address"))
    var host: String?
    @Option(help: ArgumentHelp("TCP port; 0 picks any free port (default: 51515; BLOGD_PORT).", valueName: "port"))
    var port: Int?
    @Option(name: .customLong("http"),
            help: ArgumentHelp("Also serve the public folder over HTTP on this port (default: off; BLOGD_HTTP_PORT).",
                               valueName: "port"))
    var httpPort: Int?
    @Option(name: .customLong("metrics"), help: "Serve /metrics (Prometheus text) on this port; 0 picks any free port.")
    var metricsPort: Int?
    @Option(name: .customLong("metrics-host"), help: "Address the metrics listener binds (default 127.0.0.1).")
    var metricsHost: String?
    @Flag(name: .customLong("init"),
          help: "Make the SQLite database if it is missing, even beside a public folder that holds pages.")
    var initialize = false

    /// The settings given as flags, over the file and the environment.
    var commandLineFlags: [String: String] {
        var flags: [String: String] = [:]
        flags["host"] = host
        flags["port"] = port.map(String.init)
        flags["http_port"] = httpPort.map(String.init)
        flags["metrics_port"] = metricsPort.map(String.init)
        flags["metrics_host"] = metricsHost
        return flags
    }

    func run() async throws {
        // First of all, so that a signal during start-up is not lost.
        let termination = TerminationSignal()
        // Password hashes take 16 MiB each: from mmap, so that memory goes
        // back to the system after a burst of logins instead of staying.
        _ = clinux_set_mmap_threshold(1 << 20)
        // The file read now is the one a SIGHUP reads again: gone then, it is
        // an error, not a quiet return to the defaults.
        let configFile = ConfigLoader.fileToRead(data.config)
        let settings = try await data.load(extra: commandLineFlags)
        bootstrapLogging(settings)
        // Before anything that counts is made (see MetricsSetup).
        let registry = settings.metricsPort == nil ? nil : MetricsSetup.bootstrap()
        let logger = Logger(label: "blogd")
        let create = try StartChecks.prepare(settings, initialize: initialize, logger: logger)
        let (store, service) = try openService(settings, create: create, metered: registry != nil,
                                               logger: Logger(label: "blogd.service"))
        let hold = try holdDatabase(settings, as: .server)
        defer { hold?.release() }
        if !FileManager.default.fileExists(atPath: settings.publicFolder + "/style.css") {
            logger.warning("no style.css in the public folder; pages will be unstyled", metadata: ["public": "\(settings.publicFolder)"])
        }
        // Whatever way the start or the run ends, no spare stays behind.
        defer { service.pages.removeSpares() }
        if let problem = service.pages.stagingProblem {
            logger.warning("page writes stage in the public folder and keep no spares (more CPU a post)",
                           metadata: ["reason": "\(problem)"])
        }
        service.pages.spreadBlogFolders()
        MapAssets.install(into: service.pages, logger: logger)
        // Pages are derived data: after a crash they may lag the database.
        // The check reads every blog: a site of a million users may skip it
        // at start and run `blogd rebuild` when it needs to.
        if !settings.checkPagesAtStart {
            logger.warning("the start-up page check is off (check_pages_at_start: false)")
        } else { do {
            let report = try service.repairPages()
            logger.info("pages checked", metadata: [
                "users": "\(report.checked)", "rebuilt": "\(report.rebuilt.count)", "leftovers": "\(report.leftovers)",
                "stray_photos": "\(report.strayPhotos)"])
        } catch {
            throw fail(error.description)
        } }
        try await serve(settings, store: store, service: service, registry: registry, termination: termination,
                        configFile: configFile, logger: logger)
    }

    private func serve(_ settings: BlogConfig, store: any BlogStorage, service: BlogService,
                       registry: PrometheusCollectorRegistry?, termination: TerminationSignal, configFile: String?,
                       logger: Logger) async throws {
        raiseFileLimit()
        let options = Self.serverOptions(settings)
        let server = BlogServer(service: service, options: options, logger: Logger(label: "blogd.server"))
        do {
            try server.start()
        } catch {
            throw fail("\(error)")
        }
        let shownHost = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        var web: WebServer?
        var certificates: TLSCertificates?
        if let httpPort = settings.httpPort {
            do {
                var tls: WebServer.TLS?
                if let httpsPort = settings.httpsPort, let certificate = settings.tlsCertificate, let key = settings.tlsKey {
                    certificates = try TLSCertificates(certificate: certificate, key: key)
                    // The site's own host, when base_url names one, for the redirects.
                    let site = settings.baseURL.flatMap { URLComponents(string: $0)?.host }
                        .flatMap { $0.isEmpty ? nil : $0.contains(":") ? "[\($0)]" : $0 }
                    tls = WebServer.TLS(certificates: certificates!, port: httpsPort, redirectPlain: settings.httpRedirectHTTPS,
                                        host: site)
                }
                web = try await WebServer(folder: URL(fileURLWithPath: settings.publicFolder), host: settings.host,
                                          port: httpPort, logger: Logger(label: "blogd.http"),
                                          limits: Self.webLimits(settings),
                                          health: { [store] in
                                              // Healthy: the database answers. A stopping server has
                                              // closed its port already, which a balancer sees too.
                                              (try? store.ping()) != nil
                                          },
                                          accessLog: settings.httpAccessLog ? Logger(label: "blogd.http.access") : nil,
                                          tls: tls,
                                          application: settings.webClient
                                              ? Self.application(settings, store: store, server: server, service: service) : nil,
                                          micropub: settings.webClient ? micropubLink(settings) : nil,
                                          webmention: settings.webClient ? webmentionLink(settings) : nil)
            } catch let error as TLSError {
                server.stop(timeout: 1)
                throw fail(error.description)
            } catch {
                server.stop(timeout: 1)
                throw fail("\(error)")
            }
            if let web { service.pages.changes.observe { web.pageChanged($0) } }
            logger.info("http on \(shownHost):\(web!.port)", metadata: ["public": "\(settings.publicFolder)"])
            if let tlsPort = web?.tlsPort {
                logger.info("https on \(shownHost):\(tlsPort)", metadata: ["redirect_http": "\(settings.httpRedirectHTTPS)"])
            }
        }
        var metrics: MetricsServer?
        if let registry, let metricsPort = settings.metricsPort {
            do {
                metrics = try await MetricsServer(host: settings.metricsHost, port: metricsPort,
                                                  logger: Logger(label: "blogd.metrics")) { [store] in
                    MetricsSetup.exposition(registry, activityQueue: store)
                }
            } catch {
                server.stop(timeout: 1)
                await web?.stop()
                throw fail(error.description)
            }
            let host = settings.metricsHost.contains(":") ? "[\(settings.metricsHost)]" : settings.metricsHost
            logger.info("metrics on \(host):\(metrics!.port)")
        }
        if settings.proxyProtocol && settings.trustedProxies.isEmpty {
            // Not fatal: nobody can spoof an address this way, and every
            // direct client is still served; but no proxy gets through.
            logger.warning("proxy_protocol is on but trusted_proxies is empty: no proxy can connect, and PROXY headers from anyone are refused")
        } else if settings.proxyProtocol {
            logger.info("PROXY protocol on", metadata: ["trusted_proxies": "\(settings.trustedProxies.joined(separator: ","))"])
        }
        if settings.openPosting {
            logger.warning("open posting is on: anyone can post as anyone, as in the original server")
        }
        StartChecks.warnIfRoot(logger: logger)
        logger.info("listening on \(shownHost):\(server.port)", metadata: [
            "db": "\(Database.shown(settings.database))", "public": "\(settings.publicFolder)",
            "keep_alive": "\(settings.keepAlive)", "scrypt": "\(settings.scrypt)",
            "max_connections": "\(server.maxConnections)"])
        // Scripts and tests wait for this line: no batching delay.
        BatchedStandardError.shared.flush()

        let pruner = Self.startPruning(service, logger: logger)
        defer { pruner.cancel() }
        let webmentions = settings.webmentionSend ? WebmentionSetup.startSender(settings, store: store, service: service) : nil
        let activities = settings.webClient && web != nil ? ActivityPubSetup.startDelivery(settings, store: store, service: service) : nil
        var current = settings
        var signalName = ""
        while signalName.isEmpty {
            switch await termination.next() {
            case .stop(let name): signalName = name
            case .reload:
                current = await reload(current, file: configFile, server: server, service: service, logger: logger)
                reloadCertificates(certificates, logger: logger)
            }
        }
        logger.info("stopping", metadata: ["signal": "\(signalName)"])
        if !server.stop(timeout: 10) {
            logger.warning("some connections did not close in time")
        }
        await web?.stop()
        await metrics?.stop()
        webmentions?.stop()
        activities?.stop()
        // A second at most: with the database gone it would wait out a
        // whole storage deadline, and the next start writes it anyway.
        RequestDeadline.$end.withValue(.now + .seconds(1)) { service.writeIndex() }
        service.pages.removeSpares()
        do { try store.close() } catch { logger.error("closing the database failed", metadata: ["error": "\(error)"]) }
        logger.info("stopped")
        // Within a bound: a stderr nobody reads must not hold the exit.
        BatchedStandardError.shared.finish(within: 0.5)
    }

    /// The blog port's options from the configuration.
    static func serverOptions(_ settings: BlogConfig) -> BlogServer.Options {
        var options = BlogServer.Options()
        options.host = settings.host
        options.port = settings.port
        options.maxConnections = settings.maxConnections
        // The page server's connections and a margin for the database,
        // the page files and the hashing threads.
        options.reservedDescriptors = 256 + (settings.httpPort == nil ? 0 : settings.httpMaxConnections)
        options.evictIdleAfter = settings.evictIdle ? settings.evictIdleAfter : nil
        options.eventLoops = settings.eventLoops
        options.maxConnectionsPerAddress = settings.maxConnectionsPerAddress
        options.hashesPerAddressPerSecond = settings.hashesPerAddressPerSecond
        options.hashBurstPerAddress = settings.hashBurstPerAddress
        options.maxHashWait = settings.maxHashWait
        options.postBytesPerAddressPerSecond = settings.postBytesPerAddressPerSecond
        options.postBurstBytesPerAddress = settings.postBurstBytesPerAddress
        options.budgetExempt = settings.budgetExempt
        options.proxyProtocol = settings.proxyProtocol
        options.trustedProxies = settings.trustedProxies
        options.connection.refusalHold = RefusalHold(seconds: settings.busyDelay)
        options.connection.keepAlive = settings.keepAlive
        options.connection.maxMessageBytes = settings.maxMessageBytes
        options.connection.readTimeout = settings.readTimeout
        return options
    }

    /// Expired leases and stale failed logins deleted every minute, off the
    /// request path: a flood of random names leaves no rows for good.
    static func startPruning(_ service: BlogService, logger: Logger) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "blogd.prune", qos: .utility))
        timer.schedule(deadline: .now() + 60, repeating: 60, leeway: .seconds(5))
        timer.setEventHandler {
            do {
                let failures = try service.pruneLoginState()
                if failures > 0 { logger.debug("stale failed logins deleted", metadata: ["count": "\(failures)"]) }
            } catch {
                logger.warning("pruning login state failed", metadata: ["error": "\(error)"])
            }
        }
        timer.resume()
        return timer
    }

    /// Lets the server hold as many connections as the hard limit allows.
    private func raiseFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// Where the `Link` header of the pages says Micropub is: absolute under a
/// configured `base_url`; without one, root-relative (`/micropub`), which
/// a client resolves against the page it fetched (RFC 8288, 3.1), so that
/// no page names `http://localhost/` to a reader elsewhere.
func micropubLink(_ settings: BlogConfig) -> String {
    (settings.baseURL.map { _ in settings.effectiveBaseURL } ?? "/") + PageRenderer.micropubPath
}

extension Serve {
    /// The web server's limits, its refusals held as the blog port's are.
    static func webLimits(_ settings: BlogConfig) -> WebServer.Limits {
        var limits = WebServer.Limits(maxHeaderBytes: settings.httpMaxHeaderBytes,
                                      timeout: .milliseconds(Int64(settings.httpTimeout * 1000)),
                                      maxConnections: settings.httpMaxConnections,
                                      maxConnectionsPerAddress: settings.httpMaxConnectionsPerAddress)
        limits.refusalHold = RefusalHold(seconds: settings.busyDelay)
        return limits
    }
}
