import Dispatch
import Foundation
import Synchronization
import BlogTestSupport
import Testing
@testable import BlogCore

/// What the public folder holds, hidden files included: only pages, never
/// a page write's temporary file or an old page kept to be written over,
/// and nothing of a deleted post.
@Suite("Public tree privacy")
struct PublicTreePrivacyTests {
    /// Posts made, edited and deleted every way the service deletes
    /// (`delpost`, the admin's `delete-post` and `delete-user`): no file
    /// under the public folder, nor in the staging folder, holds a
    /// deleted post's text once the site-wide pages are written.
    @Test func deletedTextStaysInNoFile() throws {
        try withService(openPosting: true, pageSize: 2) { (fx: ServiceFixture) throws in
            for name in ["alice", "bob", "carol"] { #expect(fx.send("register:\(name):pw") == .registered) }
            for round in 1...4 {
                for name in ["alice", "bob", "carol"] {
                    #expect(fx.send("newpost:\(name):Title \(name) \(round):Secret-\(name)-\(round) text") == .posted)
                }
            }
            fx.service.writeIndex()
            let alice = try #require(try fx.store.user(named: "alice"))
            let carol = try #require(try fx.store.user(named: "carol"))
            let alicePosts = try fx.store.posts(ofUserID: alice.id).sorted { $0.id < $1.id }
            let carolPosts = try fx.store.posts(ofUserID: carol.id).sorted { $0.id < $1.id }
            // Edits rewrite every page around the posts, making spares.
            #expect(fx.send("editpost:alice:\(alicePosts[3].id):Edited:Edited text") == .edited)
            #expect(fx.send("editpost:carol:\(carolPosts[3].id):Edited:Edited text") == .edited)
            fx.service.writeIndex()
            #expect(fx.send("delpost:alice:\(alicePosts[2].id)") == .deleted)
            _ = try fx.service.moderateDeletePost(id: carolPosts[1].id)
            try fx.service.moderateDeleteUser("bob")
            fx.service.writeIndex()
            let deleted = ["Secret-alice-3", "Title alice 3", "Secret-carol-2", "Title carol 2"]
                + (1...4).flatMap { ["Secret-bob-\($0)", "Title bob \($0)"] }
            #expect(fx.pages.read(file: "index.atom")?.contains("Secret-alice-2") == true, "the others are still there")
            for (path, text) in try Self.files(under: fx.publicFolder.path) + Self.files(under: fx.pages.stagingPath) {
                for secret in deleted { #expect(!text.contains(secret), "\(path) holds \(secret)") }
            }
            #expect(try Self.files(under: fx.publicFolder.path).allSatisfy { !Self.isTemporary($0.path) })
        }
    }

    /// While posts of many blogs are written at once, a watcher listing
    /// the public folder over and over sees only pages.
    @Test func noTemporaryNameIsEverListed() throws {
        try withService(openPosting: true, pageSize: 3) { (fx: ServiceFixture) throws in
            let users = (0..<6).map { "user\($0)" }
            for name in users { #expect(fx.send("register:\(name):pw") == .registered) }
            let writing = Atomic<Bool>(true)
            let seen = Collector<String>()
            let listings = Atomic<Int>(0)
            let watcher = Thread {
                while writing.load(ordering: .acquiring) {
                    for entry in Self.names(under: fx.publicFolder.path) where Self.isTemporary(entry) { seen.append(entry) }
                    listings.add(1, ordering: .relaxed)
                }
            }
            watcher.start()
            let failures = Collector<String>()
            DispatchQueue.concurrentPerform(iterations: users.count) { index in
                for round in 0..<25 {
                    let reply = fx.send("newpost:\(users[index]):Post \(round):Text \(round)")
                    if reply != .posted { failures.append("\(reply)") }
                    if round % 5 == 4 { fx.service.writeIndex() }
                }
            }
            // At least one whole listing after the last write.
            let after = listings.load(ordering: .relaxed)
            while listings.load(ordering: .relaxed) < after + 2 { sched_yield() }
            writing.store(false, ordering: .releasing)
            #expect(failures.all.isEmpty)
            #expect(seen.all.isEmpty, "\(Set(seen.all).sorted().prefix(5))")
            #expect(listings.load(ordering: .relaxed) > 2)
        }
    }

    /// A name a page write uses for its own files: hidden, or `.tmp`.
    static func isTemporary(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0.hasPrefix(".") } || path.hasSuffix(".tmp")
    }

    /// Every name under `path`, hidden ones included, relative to it.
    static func names(under path: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return [] }
        var names: [String] = []
        while let name = walker.nextObject() as? String { names.append(name) }
        return names
    }

    /// Every file's path (relative) and text under `path`.
    static func files(under path: String) throws -> [(path: String, text: String)] {
        names(under: path).compactMap { name in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isFolder), !isFolder.boolValue,
                  let data = FileManager.default.contents(atPath: path + "/" + name) else { return nil }
            return (name, String(decoding: data, as: UTF8.self))
        }
    }
}
