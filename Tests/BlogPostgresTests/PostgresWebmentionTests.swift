import BlogCore
import BlogFetch
import BlogModel
import BlogPages
import BlogTestSupport
import Dispatch
import Foundation
import Testing
@testable import BlogPostgres

/// Two blogd instances on one PostgreSQL database, each with its sender:
/// every queued Webmention is sent once, by one of them.
@Suite("PostgreSQL: Webmention senders", .enabled(if: PostgresCluster.enabled), .offPool)
struct PostgresWebmentionTests {
    @Test func twoSendersSendEachRowOnce() throws {
        let url = try freshDatabase()
        let first = try openStore(url), second = try openStore(url)
        defer {
            try? first.close()
            try? second.close()
        }
        let receiver = try HTTPStubServer { request in
            request.method == "POST" ? .init(status: 202)
                : .html("<p>post</p>", headers: [("Link", "</endpoint>; rel=\"webmention\"")])
        }
        defer { receiver.stop() }
        first.queueWebmentions(with: MentionLinks { LinkedText.urls(in: $0) })
        let alice = try first.createUser(name: "alice", passwordHash: "h", at: Date())
        let targets = (1...30).map { receiver.url("/post?n=\($0)") }
        _ = try first.addPost(userID: alice.id, title: "t", content: targets.joined(separator: " "), at: Date())
        #expect(try second.queuedWebmentions(limit: 99).count == 30)

        var settings = WebmentionSender.Settings()
        settings.batch = 4
        settings.pollInterval = nil
        let senders = [first, second].map {
            WebmentionSender(storage: $0, http: FetcherHTTP(OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true))), baseURL: "http://blog.test/", settings: settings)
        }
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            while (try? senders[index].sendDue()) ?? 0 > 0 {}
        }
        let posted = receiver.requests.filter { $0.method == "POST" }.map { $0.form["target"] ?? "" }
        #expect(posted.count == 30 && Set(posted) == Set(targets), "each once")
        #expect(senders[0].count(.sent) + senders[1].count(.sent) == 30)
        #expect(try first.queuedWebmentions(limit: 99).isEmpty)
    }
}
