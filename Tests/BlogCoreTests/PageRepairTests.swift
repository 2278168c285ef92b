import Foundation
import Testing
@testable import BlogCore

/// BlogService.repairPages and rebuildPages: pages rebuilt from the database.
@Suite("Page repair")
struct PageRepairTests {
    /// Registers `names` and gives each `posts` posts.
    private func populate(_ fx: ServiceFixture, _ names: [String], posts: Int) {
        for name in names {
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:\(name):pw", &session) == .registered)
            for index in 0 ..< posts { #expect(fx.send("newpost:\(name):t\(index):c\(index)", &session) == .posted) }
        }
        // The feeds and the index are written in the background: done now.
        fx.service.writeIndex()
    }

    private func snapshot(_ folder: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try allFileNames(in: folder) where !name.hasPrefix("index.") && !name.hasPrefix(".index.") {
            files[name] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        return files
    }

    @Test func currentPagesAreLeftAlone() throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            populate(fx, ["ann", "Ben", "cid"], posts: 5)
            let before = try snapshot(fx.publicFolder)
            let report = try fx.service.repairPages()
            #expect(report == BlogService.PageReport(checked: 3, rebuilt: []))
            #expect(try snapshot(fx.publicFolder) == before)
        }
    }

    @Test func missingDamagedAndStalePagesAreRebuilt() throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            populate(fx, ["ann", "Ben", "cid", "dee", "eve"], posts: 5)
            let good = try snapshot(fx.publicFolder)
            // ann: main page deleted.
            fx.pages.remove(file: "ann.html")
            // Ben: main page cut short.
            try fx.pages.write(String(good["Ben.html"]!.prefix(200)), user: "Ben")
            // cid: an archive deleted.
            fx.pages.remove(file: "cid.1.html")
            // dee: a post in the database but not on the page.
            let owner = try #require(try fx.store.user(named: "dee"))
            _ = try fx.store.addPost(userID: owner.id, title: "late", content: "", at: fx.clock.now)
            // eve untouched.
            let report = try fx.service.repairPages()
            #expect(report.checked == 5)
            #expect(report.rebuilt == ["ann", "Ben", "cid", "dee"])
            let after = try snapshot(fx.publicFolder)
            for name in ["ann.html", "Ben.html", "cid.1.html", "eve.html", "eve.1.html"] {
                #expect(after[name] == good[name], "\(name)")
            }
            #expect(after["dee.html"]?.contains("\">late</a></h2>") == true)
            // A second pass finds nothing to do.
            #expect(try fx.service.repairPages().rebuilt.isEmpty)
        }
    }

    @Test func extraArchiveIsRemoved() throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            populate(fx, ["ann"], posts: 5) // archive 1 and a main page of 3
            try fx.pages.write("stale", file: "ann.2.html")
            #expect(try fx.service.repairPages().rebuilt == ["ann"])
            #expect(!fx.pages.exists(file: "ann.2.html"))
            #expect(fx.pages.exists(file: "ann.1.html"))
        }
    }

    @Test func rebuildNamedUsersInAnyCase() throws {
        try withService { (fx: ServiceFixture) throws in
            populate(fx, ["Ann", "ben"], posts: 2)
            fx.pages.remove(file: "Ann.html")
            fx.pages.remove(file: "ben.html")
            #expect(try fx.service.rebuildPages(of: ["ANN"]) == ["Ann"])
            #expect(fx.articleIDs("Ann").count == 2)
            #expect(fx.page("ben") == nil, "only the named user")
            #expect(try fx.service.rebuildPages(of: []) == ["Ann", "ben"])
            #expect(fx.articleIDs("ben").count == 2)
        }
    }

    @Test func rebuildUnknownUsers() throws {
        try withService { (fx: ServiceFixture) throws in
            populate(fx, ["ann"], posts: 1)
            fx.pages.remove(file: "ann.html")
            #expect(throws: BlogService.RepairError.unknownUsers(["nobody", "ghost"])) {
                try fx.service.rebuildPages(of: ["nobody", "ann", "ghost"])
            }
            #expect(fx.page("ann") == nil, "nothing rebuilt when a name is unknown")
        }
    }

    @Test func repairFailsWithoutPublicFolder() throws {
        try withService { (fx: ServiceFixture) throws in
            populate(fx, ["ann"], posts: 1)
            fx.service.writeIndex()  // no background write may race the removal
            try FileManager.default.removeItem(at: fx.publicFolder)
            do {
                _ = try fx.service.repairPages()
                Issue.record("repair succeeded without a public folder")
            } catch let error as BlogService.RepairError {
                guard case .failed(let user, _) = error else {
                    Issue.record("expected failed, got \(error)")
                    return
                }
                #expect(user == "ann")
            }
        }
    }

    @Test func repairErrorDescriptions() {
        #expect(BlogService.RepairError.unknownUsers(["a", "b"]).description == "no such user: a, b")
        #expect(BlogService.RepairError.failed(user: "a", reason: "r").description == "cannot rebuild the pages of a: r")
    }
}

@Suite("Page repair leftovers")
struct PageRepairLeftoverTests {
    @Test func temporaryFilesOfAnInterruptedWriteAreRemoved() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:ann:pw") == .registered)
            fx.service.writeIndex()
            for name in [".ann.html.123.tmp", ".ann.2.html.9.tmp", ".index.html.5.tmp"] {
                try "half a page".write(to: fx.publicFolder.appendingPathComponent(name), atomically: false, encoding: .utf8)
            }
            let report = try fx.service.repairPages()
            #expect(report.leftovers == 3)
            #expect(try fileNames(in: fx.publicFolder) == ["ann.html", "index.html"])
        }
    }
}
