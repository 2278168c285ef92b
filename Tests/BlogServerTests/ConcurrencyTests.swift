import BlogCore
import BlogServer
import Foundation
import Testing

/// Many clients at once, each on a thread and a connection of its own.
@Suite("Many clients")
struct ConcurrencyTests {
    @Test func parallelRegistersOfOneNameHaveExactlyOneWinner() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let replies = Locked<[String]>([])
        let finished = runOnThreads(50, prepare: { _ in try? f.client(timeout: 60) }) { index, client in
            guard let client else { return replies.withLock { $0.append("connect failed") } }
            // Mixed case: the names are one name.
            let name = index % 2 == 0 ? "Racer" : "racer"
            do {
                try client.send("register:\(name):pw\(index)[E];")
                replies.withLock { $0.append((try? client.readReply()) ?? "no reply") }
            } catch {
                replies.withLock { $0.append("\(error)") }
            }
        }
        #expect(finished)
        let all = replies.value
        #expect(all.count == 50)
        #expect(all.filter { $0 == "reg:OK[E];" }.count == 1)
        #expect(all.filter { $0 == "reg:NA[E];" }.count == 49, "\(Set(all))")
        #expect(try f.store.userSummaries().count == 1)
        let winner = try #require(try f.store.user(named: "racer")?.name)
        #expect(f.page(of: winner) != nil)
    }

    @Test func hundredClientsRegisterLoginAndPost() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let count = 100
        let failures = Locked<[String]>([])
        let port = f.port
        let finished = runOnThreads(count, prepare: { _ in () }) { index, _ in
            let user = "user\(index)"
            let steps = [
                ("register:\(user):secret \(index)[E];", "reg:OK[E];"),
                ("login:\(user):secret \(index)[E];", "log:OK[E];"),
                ("newpost:\(user):Post of \(user):Text number \(index)[E];", "post:OK[E];"),
            ]
            for (message, expected) in steps {
                do {
                    let client = try TestClient(port: port, timeout: 60)
                    try client.send(message)
                    let (reply, end) = client.readToEnd()
                    if reply != expected || end != .eof {
                        failures.withLock { $0.append("\(user): \(message) -> \(reply) \(end)") }
                        return
                    }
                } catch {
                    failures.withLock { $0.append("\(user): \(message) -> \(error)") }
                    return
                }
            }
        }
        #expect(finished)
        #expect(failures.value.isEmpty, "\(failures.value.prefix(5))")
        for index in 0..<count {
            let user = "user\(index)"
            #expect(try f.postCount(of: user) == 1, "\(user)")
            let page = f.page(of: user)
            #expect(page?.contains("Post of \(user)") == true, "\(user)")
            #expect(page?.contains("Text number \(index)") == true, "\(user)")
        }
        #expect(eventually { f.server.connectionCount == 0 })
    }

    /// Posts of one user racing on separate connections: each is stored
    /// once, and the page lists them in commit order, newest first.
    @Test func concurrentPostsOfOneUserKeepThePageInOrder() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Busy")
        let count = 20
        let replies = Locked<[String]>([])
        let finished = runOnThreads(count, prepare: { _ in try? f.client(timeout: 60) }) { index, client in
            guard let client else { return replies.withLock { $0.append("connect failed") } }
            try? client.send("newpost:Busy:Title \(index):Body \(index)[E];")
            replies.withLock { $0.append((try? client.readReply()) ?? "no reply") }
        }
        #expect(finished)
        #expect(replies.value == Array(repeating: "post:OK[E];", count: count))
        let id = try #require(try f.store.user(named: "Busy")?.id)
        let stored = try f.store.posts(ofUserID: id)
        #expect(stored.count == count)
        let page = try #require(f.page(of: "Busy"))
        let positions = stored.map { page.range(of: "id=\"post-\($0.id)\"")?.lowerBound }
        #expect(!positions.contains(nil), "every post is on the page")
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "page order matches the database, newest first")
    }

    @Test func silentClientDoesNotDelayOthers() throws {
        let f = try ServerFixture { $0.connection.readTimeout = 30 }
        defer { f.tearDown() }
        let silent = try f.client()
        let halfway = try f.client()
        try halfway.send("register:Half")
        #expect(eventually { f.server.connectionCount == 2 })
        let active = try f.client(timeout: 60)
        try active.send("register:Active:pw[E];")
        #expect(try active.readReply() == "reg:OK[E];")
        // The reply came while both others are still waiting for their messages.
        #expect(!silent.hasInput(within: 0))
        #expect(!halfway.hasInput(within: 0))
        #expect(try f.ask("login:Active:pw[E];") == "log:OK[E];")
    }

    @Test func manyKeepAliveClientsPipeliningAtOnce() throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let failures = Locked<[String]>([])
        let finished = runOnThreads(10, prepare: { _ in try? f.client(timeout: 60) }) { index, client in
            guard let client else { return failures.withLock { $0.append("connect failed") } }
            let user = "Keep\(index)"
            var messages = "register:\(user):pw[E];"
            var expected = ["reg:OK[E];"]
            for post in 0..<30 {
                messages += "newpost:\(user):T\(post):c[E];login:\(user):pw[E];"
                expected += ["post:OK[E];", "log:OK[E];"]
            }
            do {
                try client.send(messages)
                client.halfClose()
                let (text, end) = client.readToEnd()
                if text != expected.joined() || end != .eof {
                    failures.withLock { $0.append("\(user): \(end) \(text.prefix(80))") }
                }
            } catch {
                failures.withLock { $0.append("\(user): \(error)") }
            }
        }
        #expect(finished)
        #expect(failures.value.isEmpty, "\(failures.value)")
        for index in 0..<10 {
            #expect(try f.postCount(of: "Keep\(index)") == 30)
        }
    }

    /// Clients that vanish with a reset, before, during or after their
    /// request, leave nothing behind and disturb nobody.
    @Test func resettingClientsDoNotDisturbTheServer() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let finished = runOnThreads(30, prepare: { _ in try? f.client() }) { index, client in
            guard let client else { return }
            switch index % 3 {
            case 0: break
            case 1: try? client.send("register:Gone\(index):p")
            default: try? client.send("register:Gone\(index):pw[E];")
            }
            client.reset()
        }
        #expect(finished)
        #expect(eventually { f.server.connectionCount == 0 }, "\(f.server.connectionCount) left")
        #expect(try f.ask("register:Survivor:pw[E];") == "reg:OK[E];")
        for index in stride(from: 1, to: 30, by: 3) {
            #expect(try f.store.user(named: "Gone\(index)") == nil)
        }
    }
}
