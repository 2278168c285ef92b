import BlogClient
import BlogCore
import Testing
import BlogWire

/// Requests built and encoded on the client side with BlogCore's rules.
@Suite struct RequestEncodingTests {
    @Test func messagesAreTheOriginalWireForm() throws {
        #expect(try Request.registering(user: "User", password: "mojeHeslo").wireMessage()
            == Array("register:User:mojeHeslo[E];".utf8))
        #expect(try Request.loggingIn(user: "User", password: "mojeHeslo").wireMessage()
            == Array("login:User:mojeHeslo[E];".utf8))
        #expect(try Request.posting(user: "User", title: "Titulek clanku", content: "Zde je cely dlouhy text prispevku.")
            .wireMessage() == Array("newpost:User:Titulek clanku:Zde je cely dlouhy text prispevku.[E];".utf8))
    }

    @Test func encodedMessagesParseBackToTheSameRequest() throws {
        let requests = try [
            Request.registering(user: "a-b_c", password: "p:a:s:s"),
            Request.loggingIn(user: "Z9", password: " spaced "),
            Request.posting(user: "x", title: "Ünïcödé title", content: "a:b\nc\r\nd\t[E]"),
            Request.posting(user: "x", title: "Empty body", content: ""),
        ]
        for request in requests {
            var message = try request.wireMessage()
            #expect(message.suffix(4).elementsEqual(Frame.terminator))
            message.removeLast(4)
            #expect(try Request(message: message) == request)
        }
    }

    @Test func fieldsOutsideTheRulesAreRefused() {
        let cases: [(() throws -> Request, InvalidArgument)] = [
            ({ try Request.registering(user: "", password: "pw") }, .field(.emptyUsername)),
            ({ try Request.registering(user: String(repeating: "a", count: 33), password: "pw") }, .field(.usernameTooLong)),
            ({ try Request.registering(user: "_alice", password: "pw") }, .field(.usernameCharacters)),
            ({ try Request.loggingIn(user: "al:ice", password: "pw") }, .field(.usernameCharacters)),
            ({ try Request.loggingIn(user: "alice", password: String(repeating: "p", count: 257)) }, .field(.passwordTooLong)),
            ({ try Request.posting(user: "alice", title: "   ", content: "") }, .field(.emptyTitle)),
            ({ try Request.posting(user: "alice", title: "Line\nbreak", content: "") }, .field(.controlCharacters)),
            ({ try Request.posting(user: "alice", title: "a:b", content: "") }, .colonInTitle),
            ({ try Request.posting(user: "alice", title: "a:\u{301}b", content: "") }, .colonInTitle),
            ({ try Request.posting(user: "alice", title: "t", content: "bell\u{7}") }, .field(.controlCharacters)),
        ]
        for (build, problem) in cases {
            #expect(throws: BlogClientError.invalidArgument(problem)) { _ = try build() }
        }
    }

    @Test func terminatorInsideAFieldIsRefused() throws {
        let request = try Request.posting(user: "alice", title: "t", content: "ends early[E]; then more")
        #expect(throws: BlogClientError.invalidArgument(.terminatorInField)) { try request.wireMessage() }
        let password = try Request.loggingIn(user: "alice", password: "pw[E];")
        #expect(throws: BlogClientError.invalidArgument(.terminatorInField)) { try password.wireMessage() }
        // `;` and a combining mark make one Character; the server still sees `[E];`.
        let combined = try Request.posting(user: "alice", title: "t", content: "a[E];\u{301}b")
        #expect(throws: BlogClientError.invalidArgument(.terminatorInField)) { try combined.wireMessage() }
    }

    @Test func colonInATitleBuiltByHandIsRefused() throws {
        let request = try Request.newPost(user: try Username("alice"), title: Title("a:b"), content: PostText(framed: "c"))
        #expect(throws: BlogClientError.invalidArgument(.colonInTitle)) { try request.wireMessage() }
    }

    @Test func repliesFoldIntoOutcomes() throws {
        let user = try Username("alice")
        let register = Request.register(user: user, password: "pw")
        let login = Request.login(user: user, password: "pw")
        let post = try Request.newPost(user: user, title: Title("t"), content: PostText(framed: "c"))
        #expect(BlogReply(.registered, answering: register) == .ok)
        #expect(BlogReply(.nameTaken, answering: register) == .taken)
        #expect(BlogReply(.databaseError, answering: register) == .serverError)
        #expect(BlogReply(.loggedIn, answering: login) == .ok)
        #expect(BlogReply(.loginRefused, answering: login) == .rejected)
        #expect(BlogReply(.databaseError, answering: login) == .serverError)
        #expect(BlogReply(.posted, answering: post) == .ok)
        #expect(BlogReply(.postRefused, answering: post) == .rejected)
        #expect(BlogReply(.postFailed, answering: post) == .serverError)
        for request in [register, login, post] {
            #expect(BlogReply(.unknownCommand, answering: request) == .unknownCommand)
            #expect(BlogReply(.badArguments, answering: request) == .badArguments)
            #expect(BlogReply(.tooLarge, answering: request) == .tooLarge)
            #expect(BlogReply(.timedOut, answering: request) == .timedOut)
            #expect(BlogReply(.busy, answering: request) == .busy)
        }
        // A reply that belongs to another command makes no sense.
        #expect(BlogReply(.loggedIn, answering: register) == nil)
        #expect(BlogReply(.registered, answering: login) == nil)
        #expect(BlogReply(.nameTaken, answering: post) == nil)
        #expect(BlogReply(.postFailed, answering: login) == nil)
        // Every wire reply folds into some outcome.
        #expect(Set(Reply.allCases.map { BlogReply($0) }.map { "\($0)" }).count == BlogReply.allCases.count)
    }
}
