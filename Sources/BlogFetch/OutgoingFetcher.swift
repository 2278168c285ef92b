import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Every outgoing HTTP request of blogd: Webmention sources and endpoints,
/// photos by URL, app pages. Bounded in bytes, time and concurrency, and
/// never to a loopback, private, link-local or otherwise special address
/// unless `FetchSettings.allowPrivateAddresses` says so.
///
/// The address is checked where it is used: the fetcher resolves the name
/// itself, checks every address, and has the HTTP client connect to the
/// checked address (its `dnsOverride`), keeping the name for the `Host`
/// header and TLS. A name that resolves to a public address for the check
/// and to a private one a moment later (DNS rebinding) is never connected
/// to again. Each redirect is a new URL, checked the same way.
///
/// Everything is async: no thread waits for the network, and the name
/// lookups run on NIO's blocking-work pool.
public final class OutgoingFetcher: Sendable {
    public let settings: FetchSettings
    private let group: any EventLoopGroup
    private let resolver: HostResolver
    private let slots: FetchSlots
    private let expiry: (@Sendable (Duration) async throws -> Void)?

    /// - Parameter expiry: waits out the time limit; nil (the default): a
    ///   timer on the event loop of the fetch's requests (`FetchDeadline`
    ///   says why there). Tests pass a wait they end by hand; it must end
    ///   when its task is cancelled, as `Task.sleep` does. Either way the
    ///   limit is decided on the requests' loop.
    public init(
        settings: FetchSettings,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        threadPool: NIOThreadPool = .singleton,
        expiry: (@Sendable (Duration) async throws -> Void)? = nil
    ) {
        self.settings = settings
        self.group = eventLoopGroup
        self.resolver = HostResolver(pool: threadPool)
        self.slots = FetchSlots(total: settings.concurrency, perHost: settings.perHostConcurrency)
        self.expiry = expiry
    }

    /// GETs `url`, following up to `maxRedirects` redirects.
    public func get(_ url: String, accept: String = "text/html") async throws(FetchError) -> FetchedResponse {
        try await bounded(url) { target, deadline in
            try await self.follow(target, headers: [("Accept", accept)], hops: 0, deadline: deadline)
        }
    }

    /// GETs `url` with `headers` (an ActivityPub signed GET: `Accept` and
    /// the signature's among them), following redirects as `get` does.
    public func get(_ url: String, headers: [(String, String)]) async throws(FetchError) -> FetchedResponse {
        try await bounded(url) { target, deadline in
            try await self.follow(target, headers: headers, hops: 0, deadline: deadline)
        }
    }

    /// POSTs an `application/x-www-form-urlencoded` form to `url`. Redirects
    /// are not followed (a Webmention endpoint answers where it is).
    public func postForm(_ url: String, fields: [(String, String)]) async throws(FetchError) -> FetchedResponse {
        let body = Array(FormEncoding.encode(fields).utf8)
        return try await bounded(url) { target, deadline in
            try await self.exchange(target, method: .POST, headers: [
                ("Content-Type", "application/x-www-form-urlencoded"),
            ], body: body, deadline: deadline)
        }
    }

    /// POSTs `body` with `headers` to `url` (an ActivityPub delivery: the
    /// signature's headers among them). Redirects are not followed.
    public func post(_ url: String, headers: [(String, String)], body: [UInt8]) async throws(FetchError) -> FetchedResponse {
        try await bounded(url) { target, deadline in
            try await self.exchange(target, method: .POST, headers: headers, body: body, deadline: deadline)
        }
    }

    /// Fetches under way now.
    public var underWay: Int { get async { await slots.underWay } }

    // MARK: - Bounds

    /// Checks the URL, takes a slot for its host, and runs `work` against
    /// the time limit, which is kept on the event loop of the fetch's
    /// requests (`FetchDeadline`): a response that ended there before the
    /// limit is taken; the limit fails the exchange under way (and cancels
    /// the rest of the work: a name lookup, a redirect not yet followed).
    private func bounded(
        _ url: String, _ work: @escaping @Sendable (FetchTarget, FetchDeadline) async throws -> FetchedResponse
    ) async throws(FetchError) -> FetchedResponse {
        let target = try FetchTarget(url)
        do {
            try await slots.acquire(host: target.host)
        } catch {
            throw .transport(error)
        }
        let loop = group.next()
        let deadline = FetchDeadline(loop: loop)
        let timer = expiry == nil ? loop.scheduleTask(in: Self.amount(settings.timeLimit)) { deadline.expire() } : nil
        let result: Result<FetchedResponse, any Error> = await withTaskGroup(of: Result<FetchedResponse, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await work(target, deadline)) } catch { return .failure(error) }
            }
            group.addTask {
                if let expiry = self.expiry {
                    do { try await expiry(self.settings.timeLimit) } catch { return nil }
                    loop.execute { deadline.expire() }
                }
                await deadline.expired()
                return nil
            }
            // The work's outcome, always: the time limit ends it (nil
            // here, then the work fails), it never stands in for it.
            var outcome: Result<FetchedResponse, any Error> = .failure(FetchError.timedOut)
            for await next in group {
                guard let next else {
                    if deadline.isExpired { group.cancelAll() }
                    continue
                }
                outcome = next
                break
            }
            group.cancelAll()
            return outcome
        }
        timer?.cancel()
        await slots.release(host: target.host)
        switch result {
        case .success(let response): return response
        case .failure(let error as FetchError): throw error
        case .failure where deadline.isExpired: throw .timedOut
        case .failure(let error): throw .transport(error)
        }
    }

    private static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private func follow(
        _ target: FetchTarget, headers: [(String, String)], hops: Int, deadline: FetchDeadline
    ) async throws -> FetchedResponse {
        let response = try await exchange(target, method: .GET, headers: headers, body: nil, deadline: deadline)
        guard [301, 302, 303, 307, 308].contains(response.status) else { return response }
        guard hops < settings.maxRedirects else { throw FetchError.tooManyRedirects(limit: settings.maxRedirects) }
        guard let location = response.header("location"), !location.isEmpty else {
            throw FetchError.badRedirect("")
        }
        let next: FetchTarget
        do {
            next = try FetchTarget(location, relativeTo: target.url)
        } catch {
            throw FetchError.badRedirect(location)
        }
        return try await follow(next, headers: headers, hops: hops + 1, deadline: deadline)
    }

    // MARK: - One exchange

    /// One request to one checked address, its body read within the cap.
    private func exchange(
        _ target: FetchTarget, method: HTTPMethod, headers: [(String, String)], body: [UInt8]?, deadline: FetchDeadline
    ) async throws -> FetchedResponse {
        let address = try await checkedAddress(for: target)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(Int64(max(1, settings.timeLimit.components.seconds)))),
            decompression: .disabled
        )
        // Connect to the address just checked, not to whatever the name
        // resolves to by the time the client looks it up again.
        configuration.dnsOverride = [target.host: address.text]
        configuration.httpVersion = .http1Only
        // A refused or failed connection fails the fetch at once: the
        // client's own retries went on until the time limit (a closed
        // port held a sender's batch for all of it); callers retry with
        // their backoff.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        do {
            let response = try await send(target, method: method, headers: headers, body: body, with: client,
                                          deadline: deadline)
            // The answer is in hand: a shutdown that reports an error (its
            // connection already gone) does not undo it. Thrown, it made a
            // delivery that had arrived a retry, sent twice.
            try? await Self.close(client)
            return response
        } catch {
            try? await Self.close(client)
            throw error
        }
    }

    /// Where clients report their shutdown: a serial queue, so Dispatch's
    /// overcommit pool, which starts a thread when one is needed.
    private static let shutdowns = DispatchQueue(label: "blogd-fetch-shutdown")

    /// Shuts `client` down. Not its async `shutdown()`: that reports on
    /// `DispatchQueue.global()`, the pool Swift's global executor runs on,
    /// one thread a core on Linux; with those threads blocked (waiting for
    /// a send, as a sender's caller may) no fetch could ever finish.
    private static func close(_ client: HTTPClient) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            client.shutdown(queue: shutdowns) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// One request, its channel and its response handling on the
    /// deadline's loop (`CappedResponse`), where the time limit is kept.
    private func send(
        _ target: FetchTarget, method: HTTPMethod, headers: [(String, String)], body: [UInt8]?, with client: HTTPClient,
        deadline: FetchDeadline
    ) async throws -> FetchedResponse {
        var request = try HTTPClient.Request(url: target.url.absoluteString, method: method)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .byteBuffer(ByteBuffer(bytes: body))
        }
        let answer = CappedResponse(url: target.url.absoluteString, maxBytes: settings.maxBytes, deadline: deadline)
        // The client's own deadline (a second past the limit, until the
        // response's head) only backs up a limit a test holds by hand.
        let task = client.execute(request: request, delegate: answer, eventLoop: .delegateAndChannel(on: deadline.loop),
                                  deadline: .now() + .seconds(Int64(max(1, settings.timeLimit.components.seconds)) + 1))
        deadline.begin(task)
        defer { deadline.end(task) }
        return try await withTaskCancellationHandler {
            try await task.get()
        } onCancel: {
            task.cancel()
        }
    }

    /// The address to connect to: every address the name has must pass,
    /// so that no choice among them can land on a forbidden one.
    private func checkedAddress(for target: FetchTarget) async throws -> ResolvedAddress {
        let addresses = try await resolver.resolve(target.host)
        if !settings.allowPrivateAddresses {
            let refused = addresses.first {
                !AddressPolicy.isPublic($0.bytes) && !settings.allowedAddresses.contains($0.text)
            }
            if let bad = refused {
                throw FetchError.forbiddenAddress(host: target.host, address: bad.text)
            }
        }
        // IPv4 first: loopback tests and most sites answer there.
        return addresses.first { $0.bytes.count == 4 } ?? addresses[0]
    }
}
