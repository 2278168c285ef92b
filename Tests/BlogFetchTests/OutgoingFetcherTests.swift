import BlogFetch
import BlogTestSupport
import Testing

/// The fetcher against a real HTTP server on loopback.
@Suite struct OutgoingFetcherTests {
    static func fetcher(_ change: (inout FetchSettings) -> Void = { _ in }, expiry: ExpiryGate = ExpiryGate()) -> OutgoingFetcher {
        // The time limit is the gate's: the real one is set far off so that
        // only the test ends a wait.
        var settings = FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true)
        change(&settings)
        return OutgoingFetcher(settings: settings, expiry: expiry.wait)
    }

    @Test func fetchesAPageWithItsHostHeader() async throws {
        let server = try await LoopbackHTTPServer.start()
        server.set("/post", .page("<p>hello</p>"))
        let response = try await Self.fetcher().get("http://localhost:\(server.port)/post")
        #expect(response.status == 200)
        #expect(response.text == "<p>hello</p>")
        #expect(server.seen.first?.header("Host") == "localhost:\(server.port)",
                "the checked address is dialled, the name kept for Host")
        try await server.close()
    }

    @Test func privateAddressRefusedWhenTheSettingIsOff() async throws {
        let server = try await LoopbackHTTPServer.start()
        server.set("/", .page("secret"))
        let fetcher = Self.fetcher { $0.allowPrivateAddresses = false }
        for url in [server.url("/"), "http://localhost:\(server.port)/", "http://[::1]:\(server.port)/",
                    "http://[::ffff:127.0.0.1]:\(server.port)/", "http://0.0.0.0:\(server.port)/"] {
            do {
                _ = try await fetcher.get(url)
                Issue.record("\(url) was fetched")
            } catch {
                guard case .forbiddenAddress = error else { Issue.record("\(url): \(error)"); continue }
            }
        }
        #expect(server.seen.isEmpty, "no request ever reached the private address")
        try await server.close()
    }

    @Test func redirectToAPrivateAddressIsRefused() async throws {
        let server = try await LoopbackHTTPServer.start()
        // 127.0.0.1 alone is allowed: the redirect to another loopback
        // address is checked again and refused before any connection.
        server.set("/hop", .redirect(to: "http://127.0.0.2:\(server.port)/inside"))
        server.set("/ok", .redirect(to: "/final"))
        server.set("/final", .page("arrived"))
        let fetcher = Self.fetcher {
            $0.allowPrivateAddresses = false
            $0.allowedAddresses = ["127.0.0.1"]
        }
        #expect(try await fetcher.get(server.url("/ok")).text == "arrived", "a redirect within the allowed host is followed")
        do {
            _ = try await fetcher.get(server.url("/hop"))
            Issue.record("the redirect was followed")
        } catch {
            guard case .forbiddenAddress(_, let address) = error else { Issue.record("\(error)"); return }
            #expect(address == "127.0.0.2")
        }
        #expect(server.seen.map(\.path) == ["/ok", "/final", "/hop"])
        try await server.close()
    }

    @Test func redirectsAreBounded() async throws {
        let server = try await LoopbackHTTPServer.start()
        server.set("/loop", .redirect(to: "/loop"))
        let fetcher = Self.fetcher { $0.maxRedirects = 3 }
        await #expect(throws: FetchError.self) { _ = try await fetcher.get(server.url("/loop")) }
        #expect(server.seen.count == 4, "the first request and three redirects")
        try await server.close()
    }

    @Test func bodyCapStopsReading() async throws {
        let server = try await LoopbackHTTPServer.start()
        server.set("/huge", .stream(chunkSize: 16 * 1024, chunks: 1024))  // 16 MiB, no length declared
        server.set("/declared", .page(status: 200, headers: [], body: [UInt8](repeating: 0x61, count: 200_000)))
        server.set("/fits", .page(status: 200, headers: [], body: [UInt8](repeating: 0x61, count: 100_000)))
        let fetcher = Self.fetcher { $0.maxBytes = 100_000 }
        for path in ["/huge", "/declared"] {
            do {
                _ = try await fetcher.get(server.url(path))
                Issue.record("\(path) was read whole")
            } catch {
                guard case .tooLarge(let limit) = error else { Issue.record("\(path): \(error)"); continue }
                #expect(limit == 100_000)
            }
        }
        #expect(try await fetcher.get(server.url("/fits")).body.count == 100_000, "exactly the cap is allowed")
        try await server.close()
    }

    @Test func anAnswerThatNeverComesTimesOut() async throws {
        let server = try await LoopbackHTTPServer.start()
        server.set("/slow", .silence)
        let gate = ExpiryGate()
        let fetcher = Self.fetcher(expiry: gate)
        let fetch = Task { try await fetcher.get(server.url("/slow")) }
        await server.waitForRequests(1)
        gate.expire()
        do {
            _ = try await fetch.value
            Issue.record("a silent server answered")
        } catch let error as FetchError {
            guard case .timedOut = error else { Issue.record("\(error)"); return }
        }
        #expect(await fetcher.underWay == 0, "the slot is given back")
        try await server.close()
    }

    @Test func onlyHTTPAndHTTPS() async throws {
        let fetcher = Self.fetcher()
        for url in ["file:///etc/passwd", "ftp://127.0.0.1/", "gopher://127.0.0.1/", "/relative", "http://user:pw@127.0.0.1/", "http:///nohost"] {
            do {
                _ = try await fetcher.get(url)
                Issue.record("\(url) was fetched")
            } catch {
                guard case .unsupportedURL = error else { Issue.record("\(url): \(error)"); continue }
            }
        }
    }

    @Test func postsAForm() async throws {
        let server = try await LoopbackHTTPServer.start()
        server.set("/webmention", .page("", status: 202))
        let response = try await Self.fetcher().postForm(server.url("/webmention"), fields: [
            ("source", "https://a.example/post?x=1&y=2"), ("target", "https://b.example/é"),
        ])
        #expect(response.status == 202)
        let seen = try #require(server.seen.first)
        #expect(seen.method == "POST")
        #expect(seen.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(String(decoding: seen.body, as: UTF8.self)
            == "source=https%3A%2F%2Fa.example%2Fpost%3Fx%3D1%26y%3D2&target=https%3A%2F%2Fb.example%2F%C3%A9")
        try await server.close()
    }
}
