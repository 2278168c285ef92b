import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogModel
@testable import BlogPostgres
@testable import BlogSQLite

/// Search p50/p99 on a database of `posts` posts (100,000 by default),
/// on every backend: run by scripts/search-bench.sh
/// (`BLOGD_SEARCH_BENCH=1`), skipped otherwise. The posts are written
/// straight into the tables in a few transactions (the index kept by the
/// triggers and the generated column, as for a post), of words drawn
/// Zipf-like from a vocabulary of 20,000: the commonest word is in most
/// posts, the rarest in a handful. Queries: a common word, a middling
/// one, a rare one, two words, and each of them on one blog.
@Suite("Search benchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["BLOGD_SEARCH_BENCH"] == "1"))
struct SearchBenchmark {
    static var posts: Int { Int(ProcessInfo.processInfo.environment["BLOGD_SEARCH_POSTS"] ?? "") ?? 100_000 }
    static let users = 1_000
    static let vocabulary = (0..<20_000).map { "w\(String($0, radix: 36))x" }

    /// Word rank drawn with density ~ 1/rank (a Zipf-like law).
    static func word(_ random: inout SeededGenerator) -> String {
        let u = Double.random(in: 0..<1, using: &random)
        return vocabulary[min(vocabulary.count - 1, Int(pow(Double(vocabulary.count), u)) - 1)]
    }

    static func texts(_ count: Int) -> [(user: Int64, title: String, content: String)] {
        var random = SeededGenerator(seed: 29)
        return (0..<count).map { index in
            let title = (0..<4).map { _ in word(&random) }.joined(separator: " ")
            let content = (0..<40).map { _ in word(&random) }.joined(separator: " ")
            return (Int64(index % users + 1), title, content)
        }
    }

    @Test(arguments: Backend.available) func searchLatency(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let started = ContinuousClock.now
            for index in 0..<Self.users { _ = try store.createUser(name: "u\(index)", passwordHash: "h", at: t0) }
            let all = Self.texts(Self.posts)
            for batch in stride(from: 0, to: all.count, by: 5_000) {
                let rows = Array(all[batch..<min(all.count, batch + 5_000)])
                switch store {
                case let sqlite as SQLiteStore:
                    try sqlite.bulkInsertPosts(rows, at: t0)
                case let postgres as PostgresStore:
                    try postgres.execute("""
                        INSERT INTO posts (user_id, title, content, created_at, page, weight)
                        SELECT u, t, c, now(), 1, 100 FROM unnest(\(rows.map(\.user)), \(rows.map(\.title)),
                                                                 \(rows.map(\.content))) AS r(u, t, c)
                        """)
                    try postgres.execute("ANALYZE posts")
                default:
                    Issue.record("no fast path for \(backend)")
                    return
                }
            }
            let built = ContinuousClock.now - started
            // A common word, a middling one, a rare one, two words.
            let words = Self.vocabulary
            let kinds: [(String, String)] = [("common", words[0]), ("middling", words[300]), ("rare", words[15_000]),
                                             ("two words", "\(words[1]) \(words[40])")]
            print("search bench, \(backend): \(Self.posts) posts of \(Self.users) blogs built in \(built)")
            var everything: [Double] = []
            for (name, text) in kinds {
                let query = try SearchQuery(text)
                for blog in [nil, Int64(7)] as [Int64?] {
                    var times: [Double] = []
                    var hits = 0
                    for round in 0..<200 {
                        let start = ContinuousClock.now
                        let found = try store.searchPosts(query, ofUserID: blog, offset: round % 3 * 20, limit: 21)
                        let (seconds, attoseconds) = (ContinuousClock.now - start).components
                        times.append(Double(seconds) * 1000 + Double(attoseconds) / 1e15)
                        hits = max(hits, found.count)
                    }
                    times.sort()
                    everything += times
                    let p50 = times[times.count / 2], p99 = times[times.count * 99 / 100]
                    print(String(format: "  %-9@ %-10@ p50 %7.2f ms  p99 %7.2f ms  (%d results a page)",
                                 name as NSString, (blog == nil ? "all blogs" : "one blog") as NSString, p50, p99, hits))
                    if blog == nil { #expect(hits > 0, "\(name) finds posts") }
                }
            }
            everything.sort()
            print(String(format: "  overall p50 %.2f ms  p99 %.2f ms over %d searches", everything[everything.count / 2],
                         everything[everything.count * 99 / 100], everything.count))
        }
    }
}
