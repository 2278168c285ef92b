import BlogCore
@testable import BlogServer
import Foundation
import Synchronization
import Testing
import BlogLimits

/// Per-address budgets and the lanes, over real loopback sockets. Counts,
/// not timings: a flood's hashes are bounded, a cheap request is answered
/// while the hash lane is full. 127.0.0.2 plays the hostile address (all of
/// 127/8 is loopback on Linux), 127.0.0.1 the well-behaved one.
@Suite("Budgets and lanes")
struct BudgetTests {
    static let hostile = "127.0.0.2"

    /// One message from `source` on its own connection; the first reply.
    static func ask(_ f: ServerFixture, _ message: String, from source: String = "127.0.0.1") throws -> String {
        let client = try f.client(source: source)
        defer { client.close() }
        try client.send(message)
        return try client.readReply()
    }

    // MARK: Connections per address

    @Test func connectionsPerAddressAreCappedAndOthersAreServed() throws {
        let f = try ServerFixture { $0.maxConnectionsPerAddress = 2 }
        defer { f.tearDown() }
        let held = try (0..<2).map { _ in try f.client(source: Self.hostile) }
        #expect(eventually { f.server.connectionCount == 2 })
        #expect(try Self.ask(f, "login:a:b[E];", from: Self.hostile) == "err:BUSY[E];")
        // Another address is not affected...
        #expect(try f.ask("register:Other:pw[E];") == "reg:OK[E];")
        // ...and the hostile one gets its place back once one of its own closes.
        held[0].close()
        #expect(eventually { f.server.connectionCount == 1 })
        #expect(try Self.ask(f, "login:a:b[E];", from: Self.hostile) == "log:NA[E];")
    }

    // MARK: Password hashes per address

    @Test func anAddressGetsItsBurstOfHashesThenErrBusyUntilItsBucketRefills() throws {
        let f = try ServerFixture {
            $0.hashBurstPerAddress = 3
            $0.hashesPerAddressPerSecond = 1
        }
        defer { f.tearDown() }
        let before = f.service.passwordHashes
        var replies: [String] = []
        for index in 0..<8 {
            replies.append(try Self.ask(f, "login:nobody\(index):x[E];", from: Self.hostile))
        }
        #expect(replies == Array(repeating: "log:NA[E];", count: 3) + Array(repeating: "err:BUSY[E];", count: 5))
        #expect(f.service.passwordHashes - before == 3, "unknown names are hashed (a decoy) and counted")
        // The well-behaved address has its own bucket.
        #expect(try f.ask("register:Good:pw[E];") == "reg:OK[E];")
        #expect(try f.ask("login:Good:pw[E];") == "log:OK[E];")
        // A second later the hostile address has one more.
        f.advance(by: 1)
        #expect(try Self.ask(f, "login:nobody:x[E];", from: Self.hostile) == "log:NA[E];")
        #expect(try Self.ask(f, "login:nobody:x[E];", from: Self.hostile) == "err:BUSY[E];")
    }

    @Test func registersSpendTheSameBudgetAndAreNotStoredWhenRefused() throws {
        let f = try ServerFixture { $0.hashBurstPerAddress = 2 }
        defer { f.tearDown() }
        let replies = try (0..<5).map { try Self.ask(f, "register:flood\($0):pw[E];", from: Self.hostile) }
        #expect(replies == ["reg:OK[E];", "reg:OK[E];", "err:BUSY[E];", "err:BUSY[E];", "err:BUSY[E];"])
        #expect(try f.store.allUsers().map(\.name) == ["flood0", "flood1"])
    }

    /// 32 logins at once from one address: exactly its burst of them is
    /// hashed, whatever the scheduling.
    @Test func aParallelLoginFloodGetsNoMoreHashesThanTheBurst() throws {
        let f = try ServerFixture { $0.hashBurstPerAddress = 5 }
        defer { f.tearDown() }
        let before = f.service.passwordHashes
        let replies = Locked<[String]>([])
        let finished = runOnThreads(32, prepare: { _ in try? f.client(source: Self.hostile) }) { index, client in
            guard let client else { return replies.withLock { $0.append("no connection") } }
            try? client.send("login:random\(index):x[E];")
            replies.withLock { $0.append((try? client.readReply()) ?? "no reply") }
        }
        #expect(finished)
        #expect(replies.value.filter { $0 == "log:NA[E];" }.count == 5)
        #expect(replies.value.filter { $0 == "err:BUSY[E];" }.count == 27)
        #expect(f.service.passwordHashes - before == 5)
    }

    /// Bytes of posts per address: a client posting large messages gets its
    /// burst, then its rate; another address posts on.
    @Test func postBytesPerAddressAreBudgeted() throws {
        let f = try ServerFixture {
            $0.postBurstBytesPerAddress = 3000
            $0.postBytesPerAddressPerSecond = 1000
            // The burst is never less than one message of the largest size.
            $0.connection.maxMessageBytes = 2048
        }
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:big:pw[E];", from: Self.hostile) == "reg:OK[E];")
        let text = String(repeating: "x", count: 950)  // with its head, under 1000 bytes
        let replies = try (0..<5).map { try Self.ask(f, "newpost:big:T\($0):\(text)[E];", from: Self.hostile) }
        #expect(replies == ["post:OK[E];", "post:OK[E];", "post:OK[E];", "err:BUSY[E];", "err:BUSY[E];"])
        #expect(try f.postCount(of: "big") == 3)
        try f.registerAndLogin("small")
        #expect(try f.ask("newpost:small:T:\(text)[E];") == "post:OK[E];")
        f.advance(by: 1)
        #expect(try Self.ask(f, "newpost:big:Later:\(text)[E];", from: Self.hostile) == "post:OK[E];")
    }

    /// Edits and deletions cost at least 8 KiB of the post budget each, a
    /// list 1 KiB: a flood of tiny edits from one address is cut off after
    /// a few, and another address edits on.
    @Test func editsAndListsSpendThePostBudgetAsLargerPosts() throws {
        let f = try ServerFixture {
            $0.postBurstBytesPerAddress = 20_000
            $0.postBytesPerAddressPerSecond = 1000
            $0.connection.maxMessageBytes = 2048
        }
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:ed:pw[E];", from: Self.hostile) == "reg:OK[E];")
        #expect(try Self.ask(f, "newpost:ed:T:x[E];", from: Self.hostile) == "post:OK[E];")
        let listing = try Self.ask(f, "posts:ed[E];", from: Self.hostile)
        let id = try #require(listing.split(separator: "\n").dropFirst().first?.split(separator: "\t").first)
        // 20,000 - 5 (the post) - 1024 (the list) leaves two edits of 8 KiB.
        let replies = try (0..<4).map { try Self.ask(f, "editpost:ed:\(id):E\($0):y[E];", from: Self.hostile) }
        #expect(replies == ["edit:OK[E];", "edit:OK[E];", "err:BUSY[E];", "err:BUSY[E];"])
        #expect(try Self.ask(f, "delpost:ed:\(id)[E];", from: Self.hostile) == "err:BUSY[E];")
        try f.registerAndLogin("other")
        #expect(try f.ask("newpost:other:T:x[E];") == "post:OK[E];")
        #expect(try f.ask("posts:other[E];").hasPrefix("posts:OK:1\n"))
    }

    /// A refused client waits for its err:BUSY (the busy delay), so a flood
    /// of refused requests cannot come straight back.
    @Test func errBusyIsHeldBackForTheBusyDelay() throws {
        let f = try ServerFixture {
            $0.hashBurstPerAddress = 1
            $0.maxConnectionsPerAddress = 1
            $0.connection.refusalHold = RefusalHold(seconds: 1)
        }
        defer { f.tearDown() }
        #expect(try Self.ask(f, "login:a:x[E];", from: Self.hostile) == "log:NA[E];")
        let refused = try f.client(source: Self.hostile)
        try refused.send("login:b:x[E];")
        // The request is in and refused; the answer waits for the clock.
        #expect(eventually { f.server.heldRefusals == 1 })
        #expect(!refused.hasInput(within: 0.1))
        f.advance(by: 1)
        #expect(try refused.readReply() == "err:BUSY[E];")
        #expect(refused.expectCleanEOF() == .eof)
    }

    // MARK: Lanes

    /// With the hash lane full, a login is refused at once, while an
    /// unknown command and a newpost, which hash nothing, are carried out.
    @Test func cheapRequestsAreAnsweredWhileTheHashLaneIsFull() throws {
        // A bound so small it admits one request at a time.
        let f = try ServerFixture { $0.maxHashWait = 1e-9 }
        defer { f.tearDown() }
        let lane = try #require(f.server.router?.hashing)
        // A request's place is given back just after its reply went out:
        // the next may come first, and find the lane of one still full.
        #expect(try f.ask("register:Poster:pw[E];") == "reg:OK[E];")
        #expect(eventually { lane.load == 0 })
        #expect(try f.ask("login:Poster:pw[E];") == "log:OK[E];")
        #expect(eventually { lane.load == 0 })
        var held = 0
        while lane.reserve() { held += 1 }
        defer { (0..<held).forEach { _ in lane.cancel() } }
        #expect(held == lane.capacity)
        let hashesBefore = f.service.passwordHashes
        #expect(try f.ask("login:Poster:pw[E];") == "err:BUSY[E];")
        #expect(try f.ask("register:Later:pw[E];") == "err:BUSY[E];")
        #expect(try f.ask("bogus[E];") == "err:CMD[E];")
        #expect(try f.ask("newpost:Poster:While full:still posted[E];") == "post:OK[E];")
        #expect(f.service.passwordHashes == hashesBefore)
        (0..<held).forEach { _ in lane.cancel() }
        held = 0
        #expect(try f.ask("login:Poster:pw[E];") == "log:OK[E];")
    }

    /// The lane admits what the hashing threads can do within the bound.
    @Test func theHashLaneHoldsAboutMaxHashWaitSecondsOfWork() {
        let lane = HashLane(maxWait: 2, concurrency: 4) { (0.1, 2) }
        #expect(lane.capacity == 40, "2 s of work at 0.1 s a hash on 2 threads")
        for _ in 0..<40 { #expect(lane.reserve()) }
        #expect(!lane.reserve())
        lane.cancel()
        #expect(lane.reserve())
        #expect(HashLane(maxWait: 0.01, concurrency: 1) { (5, 1) }.capacity == 1, "a costly setting still admits one")
    }

    @Test func aRunningRequestGivesItsPlaceBackWhenItEnds() {
        let lane = HashLane(maxWait: 1, concurrency: 1) { (1, 1) }
        #expect(lane.reserve())
        #expect(!lane.reserve())
        let done = DispatchSemaphore(value: 0)
        lane.run(session: Session(peerAddress: "192.0.2.1"), step: { _ in .answered(Outcome(reply: .nameTaken)) }) { _, _ in
            done.signal()
        }
        done.wait()
        #expect(eventually { lane.load == 0 })
        #expect(lane.reserve())
    }

    /// While its hash waits for a hashing thread, a request holds no lane
    /// thread: with the one hashing thread held and two lane places, five
    /// logins all reach the hashing threads' queue, none parked in a lane;
    /// each then finishes back on a lane thread, logged in, and gives its
    /// place back.
    @Test func noLaneThreadWaitsWhileAHashWaits() {
        let threads = WorkerThreads(name: "test.hashing", count: 1, nice: 0)
        let lane = HashLane(maxWait: 100, concurrency: 2, threads: threads) { (0.01, 1) }
        let hold = DispatchSemaphore(value: 0), holding = DispatchSemaphore(value: 0)
        let hashingThread = Mutex<pthread_t?>(nil)
        threads.submit {
            hashingThread.withLock { $0 = pthread_self() }
            holding.signal()
            hold.wait()
        }
        holding.wait()
        let hasher = hashingThread.withLock { $0 }!
        let finished = Atomic<Int>(0), hashedOffLane = Atomic<Int>(0)
        for index in 0..<5 {
            #expect(lane.reserve())
            let session = Session(peerAddress: "192.0.2.\(index)")
            lane.run(session: session, step: { session in
                .hash(PasswordWork(owner: session.peerAddress, standing: .proven, hash: {
                    if pthread_equal(pthread_self(), hasher) != 0 { hashedOffLane.add(1, ordering: .relaxed) }
                }, finish: { _ in
                    // Storage work at normal priority: never on the hashing thread.
                    Outcome(reply: pthread_equal(pthread_self(), hasher) == 0 ? .loggedIn : .databaseError)
                }))
            }) { outcome, _ in
                if outcome.reply == .loggedIn { finished.add(1, ordering: .relaxed) }
            }
        }
        #expect(eventually { threads.queued == 5 }, "every hash waits in the queue, none in a lane")
        #expect(lane.busyPlaces == 0)
        #expect(lane.load == 5, "admitted, not done")
        hold.signal()
        #expect(eventually { finished.load(ordering: .relaxed) == 5 })
        #expect(hashedOffLane.load(ordering: .relaxed) == 5)
        #expect(eventually { lane.load == 0 })
    }

    // MARK: The title rule

    /// The field rules and the schema count a title the same way, so a
    /// title the rules let through is never refused by the database.
    @Test(arguments: [String(repeating: "🇨🇿", count: 101), String(repeating: "e\u{301}", count: 200)])
    func aTitleOverTheLimitInCodePointsIsErrArgsNeverPostErr(_ title: String) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Flags")
        #expect(try f.ask("newpost:Flags:\(title):text[E];") == "err:ARGS[E];")
        #expect(try f.postCount(of: "Flags") == 0)
    }

    @Test(arguments: [String(repeating: "🇨🇿", count: 100), String(repeating: "e\u{301}", count: 100)])
    func aTitleOfTwoHundredCodePointsIsStored(_ title: String) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Flags")
        #expect(try f.ask("newpost:Flags:\(title):text[E];") == "post:OK[E];")
        let id = try #require(try f.store.user(named: "Flags")?.id)
        #expect(try f.store.posts(ofUserID: id).first?.title == title)
    }
}
