import Testing

@testable import BlogWire

@Suite("Request parsing")
struct RequestTests {
    private func parse(_ text: String) -> Result<Request, RequestError> {
        parse(bytes(text))
    }

    private func parse(_ body: [UInt8]) -> Result<Request, RequestError> {
        do { return .success(try Request(message: body)) } catch { return .failure(error) }
    }

    private func error(_ text: String) -> RequestError? {
        if case .failure(let error) = parse(text) { return error }
        return nil
    }

    // MARK: The three commands

    @Test func register() {
        #expect(parse("register:User:mojeHeslo") == .success(.register(user: user("User"), password: "mojeHeslo")))
    }

    @Test func login() {
        #expect(parse("login:User:mojeHeslo") == .success(.login(user: user("User"), password: "mojeHeslo")))
    }

    @Test func newPost() throws {
        #expect(try parse("newpost:User:Titulek clanku:Zde je cely dlouhy text prispevku.")
            == .success(.newPost(user: user("User"), title: Title("Titulek clanku"), content: PostText(framed: "Zde je cely dlouhy text prispevku."))))
    }

    @Test func commandAndUserProperties() throws {
        let register = try Request(message: bytes("register:Al:pw"))
        let login = try Request(message: bytes("login:Bo:pw"))
        let post = try Request(message: bytes("newpost:Cy:t:c"))
        #expect(register.command == "register")
        #expect(login.command == "login")
        #expect(post.command == "newpost")
        #expect(register.user.value == "Al")
        #expect(login.user.value == "Bo")
        #expect(post.user.value == "Cy")
    }

    // MARK: Splitting on the first colons

    @Test func passwordMayContainColons() {
        #expect(parse("register:bob:a:b:c") == .success(.register(user: user("bob"), password: "a:b:c")))
        #expect(parse("login:bob::") == .success(.login(user: user("bob"), password: ":")))
        #expect(parse("login:bob:pw:") == .success(.login(user: user("bob"), password: "pw:")))
    }

    @Test func contentMayContainColons() throws {
        #expect(try parse("newpost:bob:T:x:y::z:") == .success(.newPost(user: user("bob"), title: Title("T"), content: PostText(framed: "x:y::z:"))))
        #expect(try parse("newpost:bob:T::") == .success(.newPost(user: user("bob"), title: Title("T"), content: PostText(framed: ":"))))
    }

    @Test func usernameAndTitleEndAtTheFirstColon() throws {
        // What looks like "user:name" is user "user" and a password "name:pw".
        #expect(parse("register:user:name:pw") == .success(.register(user: user("user"), password: "name:pw")))
        // A title cannot hold a colon: the rest goes to the content.
        #expect(try parse("newpost:bob:Re: hello:text") == .success(.newPost(user: user("bob"), title: Title("Re"), content: PostText(framed: " hello:text"))))
    }

    @Test func contentKeepsLineBreaksAndTabs() throws {
        #expect(try parse("newpost:a:t:one\r\ntwo\nthree\rfour\tfive")
            == .success(.newPost(user: user("a"), title: Title("t"), content: PostText(framed: "one\r\ntwo\nthree\rfour\tfive"))))
    }

    @Test func contentMayBeEmpty() throws {
        #expect(try parse("newpost:a:t:") == .success(.newPost(user: user("a"), title: Title("t"), content: PostText(framed: ""))))
    }

    /// docs/protocol.md: fields split on the first colons, the last field takes
    /// the rest verbatim, and a password may be any characters. A field that
    /// starts with a combining mark must not glue itself to the colon before it.
    @Test func lastFieldMayStartWithACombiningMark() throws {
        #expect(parse("login:alice:\u{301}pw") == .success(.login(user: user("alice"), password: "\u{301}pw")))
        #expect(parse("register:alice:\u{200D}x") == .success(.register(user: user("alice"), password: "\u{200D}x")))
        #expect(try parse("newpost:alice:Title:\u{301}text")
            == .success(.newPost(user: user("alice"), title: Title("Title"), content: PostText(framed: "\u{301}text"))))
    }

    // MARK: Wrong field counts

    @Test(arguments: [
        "register", "register:", "register:a", "login", "login:", "login:a",
        "newpost", "newpost:", "newpost:a", "newpost:a:b",
    ])
    func wrongFieldCount(message: String) {
        #expect(error(message) == .badArguments(.wrongFieldCount))
        #expect(error(message)?.reply == .badArguments)
    }

    // MARK: Empty and invalid fields

    @Test func emptyFields() {
        #expect(error("register::pw") == .badArguments(.emptyUsername))
        #expect(error("register:a:") == .badArguments(.emptyPassword))
        #expect(error("login::pw") == .badArguments(.emptyUsername))
        #expect(error("login:a:") == .badArguments(.emptyPassword))
        #expect(error("newpost::t:c") == .badArguments(.emptyUsername))
        #expect(error("newpost:a::c") == .badArguments(.emptyTitle))
        #expect(error("newpost:a:   :c") == .badArguments(.emptyTitle))
        #expect(error("register:::") == .badArguments(.emptyUsername))
    }

    @Test func fieldRulesApply() {
        #expect(error("register:../x:pw") == .badArguments(.usernameCharacters))
        #expect(error("login:a b:pw") == .badArguments(.usernameCharacters))
        #expect(error("register:" + String(repeating: "a", count: 33) + ":pw") == .badArguments(.usernameTooLong))
        #expect(error("register:a:" + String(repeating: "p", count: 257)) == .badArguments(.passwordTooLong))
        #expect(error("newpost:a:" + String(repeating: "t", count: 201) + ":c") == .badArguments(.titleTooLong))
        #expect(error("newpost:a:t\tab:c") == .badArguments(.controlCharacters))
        #expect(error("newpost:a:t:c\u{0}") == .badArguments(.controlCharacters))
        #expect(error("newpost:a:t:\u{1B}[31mred") == .badArguments(.controlCharacters))
    }

    @Test func limitsAreInclusive() throws {
        let name = String(repeating: "n", count: 32)
        let password = String(repeating: "p", count: 256)
        let title = String(repeating: "t", count: 200)
        #expect(parse("register:\(name):\(password)") == .success(.register(user: user(name), password: password)))
        #expect(try parse("newpost:\(name):\(title):") == .success(.newPost(user: user(name), title: Title(title), content: PostText(framed: ""))))
    }

    // MARK: Unknown commands

    @Test(arguments: [
        "", ":", "REGISTER:a:b", "Register:a:b", "LOGIN:a:b", "NewPost:a:t:c", "logout:a",
        "registerx:a:b", "post:a:t:c", " register:a:b", "register :a:b", "reg:OK", "err:DB",
        "newpost\u{0}:a:t:c",
    ])
    func unknownCommand(message: String) {
        #expect(error(message) == .unknownCommand)
        #expect(error(message)?.reply == .unknownCommand)
    }

    // MARK: Invalid UTF-8

    @Test(arguments: [
        [0xFF],
        [0xC3],                          // truncated two-byte sequence
        [0xC0, 0xAF],                    // overlong '/'
        [0xED, 0xA0, 0x80],              // UTF-16 surrogate
        [0xF4, 0x90, 0x80, 0x80],        // past U+10FFFF
        [0x80],                          // lone continuation byte
    ] as [[UInt8]])
    func invalidUTF8(bad: [UInt8]) {
        for prefix in ["register:a:", "login:a:", "newpost:a:t:", "newpost:a:", "bogus:", ""] {
            let result = parse(bytes(prefix) + bad + bytes("x"))
            #expect(result == .failure(.badArguments(.invalidUTF8)), "prefix \(prefix)")
        }
    }

    // MARK: Replies

    @Test func errorReplies() {
        #expect(RequestError.unknownCommand.reply == .unknownCommand)
        #expect(RequestError.unknownCommand.reply.rawValue == "err:CMD")
        for field in [FieldError.invalidUTF8, .wrongFieldCount, .emptyUsername, .usernameTooLong, .usernameCharacters,
                      .emptyPassword, .passwordTooLong, .emptyTitle, .titleTooLong, .controlCharacters] {
            #expect(RequestError.badArguments(field).reply == .badArguments)
            #expect(RequestError.badArguments(field).reply.rawValue == "err:ARGS")
        }
    }

    @Test func editAndDeleteCommandsParse() throws {
        let alice = try Username("alice")
        #expect(try Request(message: Array("posts:alice".utf8)) == .listPosts(user: alice))
        #expect(try Request(message: Array("editpost:alice:17:New: title?:text: with colons".utf8))
                == .editPost(user: alice, id: 17, title: Title("New"), content: PostText(framed: " title?:text: with colons")))
        #expect(try Request(message: Array("delpost:alice:9".utf8)) == .deletePost(user: alice, id: 9))
        for bad in ["editpost:alice:0:T:x", "editpost:alice:+1:T:x", "editpost:alice: 1:T:x", "delpost:alice:1e3",
                    "delpost:alice:", "delpost:alice:1234567890123456789", "posts:", "posts:a:b", "delpost:alice",
                    "editpost:alice:1:T", "editpost:alice:1: :x", "posts:bad name"] {
            #expect(throws: RequestError.self, "\(bad)") { try Request(message: Array(bad.utf8)) }
        }
        #expect(Request.command(of: Array("delpost:x".utf8)) == .delpost)
        #expect(Request.Command.editpost.hashesPassword == false)
        // The listing reads back.
        let listing = Reply.postListing([(17, "2026-11-25T18:42:26Z", "Second"), (3, "2026-11-24T09:00:00Z", "First")])
        #expect(String(decoding: listing, as: UTF8.self)
                == "posts:OK:2\n17\t2026-11-25T18:42:26Z\tSecond\n3\t2026-11-24T09:00:00Z\tFirst[E];")
        let parsed = try #require(Reply.parsePostListing(String(decoding: listing, as: UTF8.self)))
        #expect(parsed.map(\.id) == [17, 3] && parsed.map(\.title) == ["Second", "First"])
        #expect(Reply.parsePostListing("posts:OK:3\n1\tx\ty[E];") == nil, "a count that lies")
        #expect(String(decoding: Reply.postListing([]), as: UTF8.self) == "posts:OK:0[E];")
    }

    @Test func replyWireForms() {
        let expected: [Reply: String] = [
            .registered: "reg:OK[E];", .nameTaken: "reg:NA[E];",
            .loggedIn: "log:OK[E];", .loginRefused: "log:NA[E];",
            .posted: "post:OK[E];", .postFailed: "post:ERR[E];", .databaseError: "err:DB[E];",
            .postRefused: "post:NA[E];", .unknownCommand: "err:CMD[E];", .badArguments: "err:ARGS[E];",
            .tooLarge: "err:SIZE[E];", .timedOut: "err:TIME[E];", .busy: "err:BUSY[E];",
            .postsListed: "posts:OK[E];", .edited: "edit:OK[E];", .editRefused: "edit:NA[E];",
            .deleted: "del:OK[E];", .deleteRefused: "del:NA[E];",
        ]
        #expect(Set(Reply.allCases) == Set(expected.keys))
        for (reply, wire) in expected {
            #expect(reply.bytes == bytes(wire))
            #expect(Reply(wire: wire) == reply)
            #expect(Reply(wire: wire.dropLast(4)) == reply)
        }
    }

    @Test func replyParsingRefusesOtherText() {
        #expect(Reply(wire: "") == nil)
        #expect(Reply(wire: "[E];") == nil)
        #expect(Reply(wire: "REG:OK[E];") == nil)
        #expect(Reply(wire: "reg:OK[E];[E];") == nil)
        #expect(Reply(wire: " reg:OK") == nil)
    }
}

@Suite("Request encoding")
struct RequestEncodingRoundTripTests {
    @Test(arguments: [
        "register:alice:pa:ss", "login:Bob-1:x", "newpost:alice:Title:text: with: colons\nand lines",
        "newpost:alice:T:", "login:alice:\u{301}combining",
    ])
    func messageBodyReadsBackAsItself(message: String) throws {
        let request = try Request(message: Array(message.utf8))
        #expect(request.messageBody == message)
        #expect(try Request(message: Array(request.messageBody.utf8)) == request)
    }

    @Test func frameEncodeAddsTheTerminator() {
        #expect(Frame.encode("login", ["a", "b"]) == Array("login:a:b[E];".utf8))
        #expect(Frame.encode("bench", []) == Array("bench[E];".utf8))
    }
}
