import Foundation
import Testing

/// The `blog` command line against a real server: outputs and exit codes.
@Suite struct CLITests {
    private func blog(_ arguments: [String], _ fixture: TestServer, password: String? = "pw",
                      input: String? = nil) throws -> CLIRunner.Result {
        // A generous reply timeout: a register hashes a password, and on a
        // machine with both cores busy that has taken over 5 s.
        try CLIRunner.run(arguments + ["--host", "127.0.0.1", "--port", String(fixture.port), "--timeout", "60"],
                          password: password, input: input)
    }

    @Test func registerThenRegisterAgain() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let first = try blog(["register", "alice"], fixture)
        #expect(first.status == 0)
        #expect(first.stdout == "registered alice\n")
        #expect(fixture.page(of: "alice") != nil)
        let again = try blog(["register", "ALICE"], fixture, password: "other")
        #expect(again.status == 1)
        #expect(again.stderr == "blog: name taken\n")
    }

    @Test func loginRightAndWrong() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        #expect(try blog(["register", "bob"], fixture, password: "secret").status == 0)
        let right = try blog(["login", "bob"], fixture, password: "secret")
        #expect(right.status == 0)
        #expect(right.stdout == "logged in as bob\n")
        let wrong = try blog(["login", "bob"], fixture, password: "guess")
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("login refused"))
    }

    @Test func postLogsInThenPostsTheTextFromStandardInput() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        try fixture.createUserDirectly("placeholder")  // the store works
        #expect(try blog(["register", "carol"], fixture, password: "secret").status == 0)
        let posted = try blog(["post", "carol", "--title", "Hello world"], fixture, password: "secret",
                              input: "First line.\nSecond: line.\n")
        #expect(posted.status == 0)
        #expect(posted.stdout == "posted\n")
        let page = try #require(fixture.page(of: "carol"))
        #expect(page.contains("Hello world"))
        #expect(page.contains("First line."))
        #expect(page.contains("Second: line."))
    }

    @Test func postWithWrongPasswordIsRefusedAndNothingIsPosted() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        #expect(try blog(["register", "dave"], fixture, password: "secret").status == 0)
        let before = fixture.page(of: "dave")
        let refused = try blog(["post", "dave", "-t", "Forged"], fixture, password: "wrong", input: "text")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("login refused"))
        #expect(fixture.page(of: "dave") == before)
    }

    @Test func postFromAFile() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        #expect(try blog(["register", "erin"], fixture).status == 0)
        let file = fixture.folder.appendingPathComponent("post.txt")
        try Data("From a file <b>bold</b>\n".utf8).write(to: file)
        let posted = try blog(["post", "erin", "--title", "Filed", "--file", file.path], fixture)
        #expect(posted.status == 0)
        let page = try #require(fixture.page(of: "erin"))
        #expect(page.contains("From a file &lt;b&gt;bold&lt;/b&gt;"))
        let missing = try blog(["post", "erin", "--title", "Filed", "--file", file.path + ".missing"], fixture)
        #expect(missing.status == 64)
    }

    @Test func postWithoutLoginReliesOnAnEarlierLogin() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        try fixture.createUserDirectly("frank")
        let notLoggedIn = try blog(["post", "frank", "-t", "Early", "--no-login"], fixture, password: nil, input: "x")
        #expect(notLoggedIn.status == 1)
        #expect(notLoggedIn.stderr.contains("post refused"))
        #expect(try blog(["register", "gina"], fixture, password: "pw").status == 0)
        #expect(try blog(["login", "gina"], fixture, password: "pw").status == 0)
        let posted = try blog(["post", "gina", "-t", "Later", "--no-login"], fixture, password: nil, input: "y")
        #expect(posted.status == 0)
        #expect(fixture.page(of: "gina")?.contains("Later") == true)
    }

    @Test func serverFailureIsExitCode2() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        try fixture.breakPages()
        let failed = try blog(["register", "hank"], fixture)
        #expect(failed.status == 2)
        #expect(failed.stderr == "blog: server error\n")
    }

    @Test func serverDownIsExitCode3() throws {
        let port = unusedPort()
        let down = try CLIRunner.run(["login", "ivy", "--host", "127.0.0.1", "--port", String(port)], password: "pw")
        #expect(down.status == 3)
        #expect(down.stderr == "blog: cannot connect to 127.0.0.1:\(port): connection refused\n")
        let silent = RawListener()
        defer { silent.close() }
        let slow = try CLIRunner.run(["login", "ivy", "--host", "127.0.0.1", "--port", String(silent.port),
                                      "--timeout", "0.3"], password: "pw")
        #expect(slow.status == 3)
        #expect(slow.stderr.contains("timed out"))
    }

    @Test func postAtAPlaceSendsGeopost() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        #expect(try blog(["register", "dora"], fixture, password: "secret").status == 0)
        let posted = try blog(["post", "dora", "--title", "Summit", "--at", "45.8326,6.8652"], fixture, password: "secret",
                              input: "Mont Blanc.\n")
        #expect(posted.status == 0)
        #expect(posted.stdout == "posted\n")
        let page = try #require(fixture.page(of: "dora"))
        #expect(page.contains("https://www.openstreetmap.org/?mlat=45.8326&amp;mlon=6.8652"))
    }

    @Test(arguments: [
        ["post", "alice", "--title", "t", "--at", "91,0"],
        ["post", "alice", "--title", "t", "--at", "45.8"],
        ["post", "alice", "--title", "t", "--at", "1e1,2"],
        ["register", "bad name"],
        ["register", "_starts_with_underscore"],
        ["post", "alice", "--title", "has:colon"],
        ["post", "alice"],
        ["login"],
        ["login", "alice", "--port", "70000"],
        ["frobnicate"],
    ])
    func usageErrorsAreExitCode64(arguments: [String]) throws {
        // A port where nothing listens, in case blog got as far as connecting.
        let port = arguments.contains("--port") ? [] : ["--port", String(unusedPort())]
        let result = try CLIRunner.run(arguments + port, password: "pw")
        #expect(result.status == 64)
        #expect(!result.stderr.isEmpty)
    }

    @Test func noPasswordWithoutTerminalIsExitCode64() throws {
        let result = try CLIRunner.run(["login", "alice", "--port", String(unusedPort())], password: nil)
        #expect(result.status == 64)
        #expect(result.stderr.contains("BLOG_PASSWORD"))
    }

    @Test func helpDocumentsTheExitCodes() throws {
        let help = try CLIRunner.run(["--help"], password: nil)
        #expect(help.status == 0)
        for line in ["BLOG_PASSWORD", "EXIT CODES", "0   done", "1   refused", "2   server error",
                     "3   connection failure", "64  usage error", "--no-login"] {
            #expect(help.stdout.contains(line), "\(line)")
        }
    }
}
