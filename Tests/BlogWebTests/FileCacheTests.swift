import CompressNIO
import Foundation
import Synchronization
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
        let cache = FileCache(folder: folder.public.path, capacity: 1 << 20)
        let first = try #require(cache.read("alice.html").file)
        #expect(String(buffer: first.bytes) == "<h1>alice</h1>")
        let again = try #require(cache.read("alice.html").file)
        #expect(again.version == first.version)
        #expect(cache.counts.diskReads == 1, "the second read came from memory")

        // Same size, within the same clock tick or not: a new inode.
        try replace("alice.html", with: "<h1>ALICE</h1>")
        let fresh = try #require(cache.read("alice.html").file)
        #expect(String(buffer: fresh.bytes) == "<h1>ALICE</h1>")
        #expect(fresh.version != first.version)
        #expect(cache.counts.diskReads == 2)

        try FileManager.default.removeItem(atPath: path("alice.html"))
        #expect(cache.read("alice.html").file == nil, "a deleted page is gone, not served from memory")
    }

    @Test func gzippedOnceAVersion() throws {
        let cache = FileCache(folder: folder.public.path, capacity: 1 << 20)
        let text = String(repeating: "<p>a line of a post</p>\n", count: 100)
        try replace("bob.html", with: text)
        let page = try #require(cache.read("bob.html").file)
        var first = try #require(cache.gzip(page, name: "bob.html"))
        _ = try #require(cache.gzip(page, name: "bob.html"))
        #expect(cache.counts.compressions == 1)
        #expect(String(buffer: try first.decompress(with: .gzip())) == text)
        try replace("bob.html", with: text + "<p>one more</p>\n")
        let next = try #require(cache.read("bob.html").file)
        var second = try #require(cache.gzip(next, name: "bob.html"))
        #expect(cache.counts.compressions == 2)
        #expect(String(buffer: try second.decompress(with: .gzip())).hasSuffix("<p>one more</p>\n"))
    }

    /// Past its capacity the cache forgets the page used longest ago, and
    /// a page larger than all of it is served but never kept.
    @Test func boundedInBytesLeastRecentlyUsedFirst() throws {
        let cache = FileCache(folder: folder.public.path, capacity: 3_000)
        for name in ["a.html", "b.html", "c.html"] { try folder.writePage(name, bytes: 1_000) }
        try folder.writePage("huge.html", bytes: 10_000)
        _ = cache.read("a.html").file
        _ = cache.read("b.html").file
        _ = cache.read("a.html").file       // a is now newer than b
        _ = cache.read("c.html").file       // 3,000 bytes: all fit
        #expect(cache.counts.diskReads == 3)
        try folder.writePage("d.html", bytes: 1_000)
        _ = cache.read("d.html").file       // b goes
        _ = cache.read("a.html").file
        _ = cache.read("c.html").file
        #expect(cache.counts.diskReads == 4, "a and c were kept")
        _ = cache.read("b.html").file
        #expect(cache.counts.diskReads == 5, "b was evicted")
        #expect(cache.read("huge.html").file?.bytes.readableBytes == 10_000)
        #expect(cache.read("huge.html").file?.bytes.readableBytes == 10_000)
        #expect(cache.counts.diskReads == 7, "too large to keep: read each time")
    }

    /// With `trustedFor`, a copy checked a moment ago is served without a
    /// `stat`; once that time has passed (on the injected clock), the next
    /// request checks, and a page replaced meanwhile is served fresh.
    @Test func trustedForAMomentThenCheckedAgain() throws {
        let clock = Atomic<UInt64>(1_000_000_000)
        let cache = FileCache(folder: folder.public.path, capacity: 1 << 20, trustedFor: .milliseconds(100),
                              now: { clock.load(ordering: .relaxed) })
        let first = try #require(cache.read("alice.html").file)
        let stats = cache.counts.stats
        try replace("alice.html", with: "<h1>ALICE</h1>")
        clock.add(99_000_000, ordering: .relaxed)
        #expect(cache.read("alice.html").file?.version == first.version, "still within the time it is trusted")
        #expect(cache.counts.stats == stats, "no stat while trusted")

        clock.add(1_000_000, ordering: .relaxed)
        #expect(cache.read("alice.html").file.map { String(buffer: $0.bytes) } == "<h1>ALICE</h1>")
        #expect(cache.counts.diskReads == 2)
        // Checked just now: trusted again from here.
        let checked = cache.counts.stats
        _ = cache.read("alice.html")
        #expect(cache.counts.stats == checked)
    }

    /// Without `trustedFor` every request checks: a replaced page is served
    /// fresh at once, whatever the clock says.
    @Test func untrustedChecksEveryTime() throws {
        let cache = FileCache(folder: folder.public.path, capacity: 1 << 20, now: { 0 })
        _ = cache.read("alice.html")
        try replace("alice.html", with: "<h1>ALICE</h1>")
        #expect(cache.read("alice.html").file.map { String(buffer: $0.bytes) } == "<h1>ALICE</h1>")
    }

    /// A page deleted with a tombstone beside it is `.gone`, not served
    /// from memory; without one it is `.missing`.
    @Test func deletedPagesAreGoneOrMissing() throws {
        let cache = FileCache(folder: folder.public.path, capacity: 1 << 20)
        try FileManager.default.createDirectory(at: folder.public.appendingPathComponent("alice"), withIntermediateDirectories: true)
        try Data("<p>17</p>".utf8).write(to: folder.public.appendingPathComponent("alice/17.html"))
        #expect(cache.read("alice/17.html").file != nil)
        try FileManager.default.removeItem(atPath: path("alice/17.html"))
        try Data().write(to: folder.public.appendingPathComponent("alice/17.html.gone"))
        guard case .gone = cache.read("alice/17.html") else { Issue.record("not gone"); return }
        guard case .missing = cache.read("alice/18.html") else { Issue.record("not missing"); return }
    }
}
