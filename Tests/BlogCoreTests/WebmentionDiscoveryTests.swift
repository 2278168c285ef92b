import BlogCore
import Testing

/// Endpoint discovery (W3C Webmention 3.1.2) on the test suite's cases
/// (webmention.rocks' discovery tests, in spirit): the header first, then
/// the first `<link>` or `<a>`, relative URLs against the final URL.
@Suite("Webmention discovery")
struct WebmentionDiscoveryTests {
    private func endpoint(headers: [String: String] = [:], html: String = "",
                          url: String = "https://target.example/post/1?x=y") -> String? {
        var all = headers
        if all["Content-Type"] == nil { all["Content-Type"] = "text/html; charset=utf-8" }
        return WebmentionDiscovery.endpoint(in: HTTPAnswer(url: url, status: 200, headers: all, body: Array(html.utf8)))
    }

    @Test func theLinkHeaderComesFirst() {
        #expect(endpoint(headers: ["Link": "<https://e.example/wm>; rel=\"webmention\""],
                         html: "<link rel=webmention href=/other>") == "https://e.example/wm")
        #expect(endpoint(headers: ["Link": "</wm?a=1>; rel=webmention"]) == "https://target.example/wm?a=1")
        #expect(endpoint(headers: ["Link": "<wm>; rel=\"webmention\""]) == "https://target.example/post/wm")
        // Several links, rel lists, unusual spacing and case.
        #expect(endpoint(headers: ["Link": "<https://a.example/,x>; rel=\"other\", <https://b.example/wm>;rel=\"nofollow WebMention\""])
                == "https://b.example/wm")
        #expect(endpoint(headers: ["Link": "<https://a.example/wm>; rel=\"not-webmention\""], html: "") == nil)
    }

    @Test func theFirstLinkOrAnchorInTheHTML() {
        #expect(endpoint(html: "<a href=\"/a\" rel=\"webmention\">x</a><link rel=webmention href=/b>")
                == "https://target.example/a")
        #expect(endpoint(html: "<link rel=\"webmention\" href=\"\">") == "https://target.example/post/1?x=y",
                "an empty href is the target itself, query kept")
        #expect(endpoint(html: "<!-- <link rel=webmention href=/commented> --><link rel='webmention' href='/real'>")
                == "https://target.example/real")
        #expect(endpoint(html: "<link rel=webmention><a rel=webmention href=\"/with?a=1&amp;b=2\">")
                == "https://target.example/with?a=1&b=2", "no href: passed over; entities decoded")
        #expect(endpoint(html: "<script>'<link rel=webmention href=/in-script>'</script><a rel=webmention href=/ok>")
                == "https://target.example/ok")
        #expect(endpoint(html: "<link rel=webmention href=\"javascript:alert(1)\">") == nil, "only http(s)")
        #expect(endpoint(headers: ["Content-Type": "application/json"], html: "<link rel=webmention href=/x>") == nil)
    }

    @Test func redirectsResolveAgainstTheFinalURL() {
        #expect(endpoint(html: "<link rel=webmention href=wm>", url: "https://final.example/a/b") == "https://final.example/a/wm")
    }

    @Test func retriesBackOffExponentiallyUpToTheBound() {
        var settings = WebmentionSender.Settings()
        settings.firstRetry = 60
        settings.maxRetry = 600
        #expect((1...6).map { settings.retryDelay(afterAttempt: $0) } == [60, 120, 240, 480, 600, 600])
    }
}
