import CompressNIO
import Foundation
import NIOCore
import Testing
@testable import BlogWeb

/// The pages kept in memory: served while the file is unchanged, read
/// again once it is replaced, gzipped once a version, bounded in bytes.
@Suite
struct FileCacheTests {
    let folder: TempFolder

    init() throws {
        folder = try TempFolder()
    }

    func path(_ name: String) -> String { folder.public.appendingPathComponent(name).path }

    /// Replaces `name` as blogd does: a new file renamed over it.
    func replace(_ name: String, with text: String) throws {
        let next = folder.public.appendingPathComponent(".\(name).tmp")
        try Data(text.utf8).write(to: next)
        #expect(rename(next.path, path(name)) == 0)
    }

    @Test func servedFromMemoryUntilReplaced() throws {
        let cache = FileCache(capacity: 1 << 20)
        let first = try #require(cache.read(atPath: path("alice.html")))
        #expect(String(buffer: first.bytes) == "<h1>alice</h1>")
        let again = try #require(cache.read(atPath: path("alice.html")))
        #expect(again.version == first.version)
        #expect(cache.counts.diskReads == 1, "the second read came from memory")

        // Same size, within the same clock tick or not: a new inode.
        try replace("alice.html", with: "<h1>ALICE</h1>")
        let fresh = try #require(cache.read(atPath: path("alice.html")))
        #expect(String(buffer: fresh.bytes) == "<h1>ALICE</h1>")
        #expect(fresh.version != first.version)
        #expect(cache.counts.diskReads == 2)

        try FileManager.default.removeItem(atPath: path("alice.html"))
        #expect(cache.read(atPath: path("alice.html")) == nil, "a deleted page is gone, not served from memory")
    }

    @Test func gzippedOnceAVersion() throws {
        let cache = FileCache(capacity: 1 << 20)
        let text = String(repeating: "<p>a line of a post</p>\n", count: 100)
        try replace("bob.html", with: text)
        let page = try #require(cache.read(atPath: path("bob.html")))
        var first = try #require(cache.gzip(page, atPath: path("bob.html")))
        _ = try #require(cache.gzip(page, atPath: path("bob.html")))
        #expect(cache.counts.compressions == 1)
        #expect(String(buffer: try first.decompress(with: .gzip())) == text)
        try replace("bob.html", with: text + "<p>one more</p>\n")
        let next = try #require(cache.read(atPath: path("bob.html")))
        var second = try #require(cache.gzip(next, atPath: path("bob.html")))
        #expect(cache.counts.compressions == 2)
        #expect(String(buffer: try second.decompress(with: .gzip())).hasSuffix("<p>one more</p>\n"))
    }

    /// Past its capacity the cache forgets the page used longest ago, and
    /// a page larger than all of it is served but never kept.
    @Test func boundedInBytesLeastRecentlyUsedFirst() throws {
        let cache = FileCache(capacity: 3_000)
        for name in ["a.html", "b.html", "c.html"] { try folder.writePage(name, bytes: 1_000) }
        try folder.writePage("huge.html", bytes: 10_000)
        _ = cache.read(atPath: path("a.html"))
        _ = cache.read(atPath: path("b.html"))
        _ = cache.read(atPath: path("a.html"))       // a is now newer than b
        _ = cache.read(atPath: path("c.html"))       // 3,000 bytes: all fit
        #expect(cache.counts.diskReads == 3)
        try folder.writePage("d.html", bytes: 1_000)
        _ = cache.read(atPath: path("d.html"))       // b goes
        _ = cache.read(atPath: path("a.html"))
        _ = cache.read(atPath: path("c.html"))
        #expect(cache.counts.diskReads == 4, "a and c were kept")
        _ = cache.read(atPath: path("b.html"))
        #expect(cache.counts.diskReads == 5, "b was evicted")
        #expect(cache.read(atPath: path("huge.html"))?.bytes.readableBytes == 10_000)
        #expect(cache.read(atPath: path("huge.html"))?.bytes.readableBytes == 10_000)
        #expect(cache.counts.diskReads == 7, "too large to keep: read each time")
    }
}
