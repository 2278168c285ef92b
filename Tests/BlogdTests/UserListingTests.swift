import Foundation
import Testing
import BlogTestSupport
@testable import blogd
@testable import BlogCore
import BlogSQLite
import BlogModel

@Suite("UserListing")
struct UserListingTests {
    private let t0 = TestClock.start // 2027-01-15 08:00:00 UTC

    private var sample: [UserSummary] {
        [
            UserSummary(name: "alice", registeredAt: t0, postCount: 12, lastPostAt: t0.addingTimeInterval(3725)),
            UserSummary(name: "Bob_with_a_long_name", registeredAt: t0.addingTimeInterval(86_400), postCount: 0, lastPostAt: nil),
            UserSummary(name: "c", registeredAt: t0.addingTimeInterval(59), postCount: 3, lastPostAt: t0.addingTimeInterval(60)),
        ]
    }

    // MARK: Table

    @Test func tableLines() {
        let table = UserListing.table(sample)
        #expect(table.hasSuffix("\n"))
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 5, "header, three users, count")
        #expect(lines[0].hasPrefix("NAME "))
        for heading in ["REGISTERED (UTC)", "POSTS", "LAST POST (UTC)"] { #expect(lines[0].contains(heading)) }
        #expect(lines[1].hasPrefix("alice "))
        #expect(lines[1].contains("2027-01-15 08:00:00"))
        #expect(lines[1].contains("2027-01-15 09:02:05"))
        #expect(lines[2].hasPrefix("Bob_with_a_long_name "))
        #expect(lines[2].contains("2027-01-16 08:00:00"))
        #expect(lines[2].hasSuffix(" -"), "no post yet")
        #expect(lines[3].hasPrefix("c "))
        #expect(lines[4] == "3 users")
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") }, "no trailing spaces")
    }

    @Test func tableIsAligned() {
        let lines = UserListing.table(sample).split(separator: "\n").map(String.init)
        let header = lines[0]
        let registered = header.range(of: "REGISTERED")!.lowerBound.utf16Offset(in: header)
        let postsEnd = header.range(of: "POSTS")!.upperBound.utf16Offset(in: header)
        let last = header.range(of: "LAST POST")!.lowerBound.utf16Offset(in: header)
        for (line, count) in zip(lines[1 ... 3], ["12", "0", "3"]) {
            let chars = Array(line)
            // The registration date starts under its heading.
            #expect(String(chars[registered ..< registered + 4]) == "2027", "\(line)")
            #expect(chars[registered - 1] == " ")
            // Counts are right-aligned: they end where POSTS ends.
            #expect(String(chars[postsEnd - count.count ..< postsEnd]) == count, "\(line)")
            #expect(chars[postsEnd - count.count - 1] == " ")
            // The last post column starts under its heading.
            #expect(chars[last] == "2" || chars[last] == "-", "\(line)")
            #expect(chars[last - 1] == " ")
        }
    }

    @Test func tableCounts() {
        #expect(UserListing.table([]) == "NAME  REGISTERED (UTC)  POSTS  LAST POST (UTC)\n0 users\n")
        let one = UserListing.table([UserSummary(name: "x", registeredAt: t0, postCount: 1, lastPostAt: t0)])
        #expect(one == """
            NAME  REGISTERED (UTC)     POSTS  LAST POST (UTC)
            x     2027-01-15 08:00:00      1  2027-01-15 08:00:00
            1 user

            """)
    }

    // MARK: JSON

    @Test func jsonArrayWithFixedKeys() throws {
        let text = UserListing.json(sample)
        #expect(text.hasSuffix("\n"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(parsed.count == 3)
        for entry in parsed {
            #expect(Set(entry.keys) == ["name", "registered_at", "posts", "last_post_at", "suspended"])
        }
        #expect(parsed[0]["name"] as? String == "alice")
        #expect(parsed[0]["registered_at"] as? String == "2027-01-15T08:00:00Z")
        #expect(parsed[0]["posts"] as? Int == 12)
        #expect(parsed[0]["last_post_at"] as? String == "2027-01-15T09:02:05Z")
        #expect(parsed[1]["name"] as? String == "Bob_with_a_long_name")
        #expect(parsed[1]["posts"] as? Int == 0)
        #expect(parsed[1]["last_post_at"] is NSNull, "null when no posts")
        #expect(parsed.map { $0["name"] as? String } == ["alice", "Bob_with_a_long_name", "c"], "order kept")
    }

    @Test func jsonDatesAreISO8601() throws {
        let text = UserListing.json(sample)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let formatter = ISO8601DateFormatter()
        for (entry, summary) in zip(parsed, sample) {
            let registered = try #require(entry["registered_at"] as? String)
            #expect(formatter.date(from: registered) == summary.registeredAt)
            if let last = summary.lastPostAt {
                #expect(formatter.date(from: try #require(entry["last_post_at"] as? String)) == last)
            }
        }
    }

    @Test func jsonEmpty() throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(UserListing.json([]).utf8))
        #expect((parsed as? [Any])?.isEmpty == true)
    }

    @Test func listingFromAStore() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            _ = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            _ = try store.addPost(userID: bob.id, title: "t", content: "c", at: t0.addingTimeInterval(5))
            let summaries = try store.userSummaries()
            let table = UserListing.table(summaries)
            #expect(table.hasSuffix("2 users\n"))
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(UserListing.json(summaries).utf8)) as? [[String: Any]])
            #expect(parsed.map { $0["name"] as? String } == ["Alice", "bob"])
            #expect(parsed.map { $0["posts"] as? Int } == [0, 1])
            #expect(parsed[1]["last_post_at"] as? String == "2027-01-15T08:00:05Z")
            #expect(parsed[0]["last_post_at"] is NSNull)
        }
    }
}
