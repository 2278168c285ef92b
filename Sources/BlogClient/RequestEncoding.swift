import BlogWire

/// Building requests on the client side, checked with BlogCore's own rules,
/// and writing them in the wire form that BlogCore's parser reads.
extension Request {
    /// A `register:USERNAME:PASSWORD` request, checked against the field rules.
    public static func registering(user: String, password: String) throws(BlogClientError) -> Request {
        try checked { () throws(FieldError) in
            .register(user: try Username(user), password: try FieldRules.password(password))
        }
    }

    /// A `login:USERNAME:PASSWORD` request, checked against the field rules.
    public static func loggingIn(user: String, password: String) throws(BlogClientError) -> Request {
        try checked { () throws(FieldError) in
            .login(user: try Username(user), password: try FieldRules.password(password))
        }
    }

    /// A `newpost:USERNAME:TITLE:CONTENT` request, or with a place
    /// `geopost:USERNAME:LAT:LON:TITLE:CONTENT`, checked against the field
    /// rules. A title may not contain `:`.
    public static func posting(user: String, title: String, content: String,
                               place: Place? = nil) throws(BlogClientError) -> Request {
        let request = try checked { () throws(FieldError) in
            let (user, title, content) = (try Username(user), try Title(title), try PostText(framed: content))
            return place.map { Request.geoPost(user: user, place: $0, title: title, content: content) }
                ?? Request.newPost(user: user, title: title, content: content)
        }
        // Bytes, not Characters: a ':' followed by a combining mark is one
        // Character, but the server splits on the byte.
        guard !title.utf8.contains(UInt8(ascii: ":")) else { throw .invalidArgument(.colonInTitle) }
        return request
    }

    /// A `posts:USERNAME` request.
    public static func listing(user: String) throws(BlogClientError) -> Request {
        try checked { () throws(FieldError) in .listPosts(user: try Username(user)) }
    }

    /// An `editpost:USERNAME:ID:TITLE:CONTENT` request; a title may not
    /// contain `:`.
    public static func editing(user: String, id: Int64, title: String, content: String) throws(BlogClientError) -> Request {
        let request = try checked { () throws(FieldError) in
            Request.editPost(user: try Username(user), id: try FieldRules.postID(String(id)),
                             title: try Title(title), content: try PostText(framed: content))
        }
        guard !title.utf8.contains(UInt8(ascii: ":")) else { throw .invalidArgument(.colonInTitle) }
        return request
    }

    /// A `delpost:USERNAME:ID` request.
    public static func deleting(user: String, id: Int64) throws(BlogClientError) -> Request {
        try checked { () throws(FieldError) in .deletePost(user: try Username(user), id: try FieldRules.postID(String(id))) }
    }

    /// The whole message as sent, `[E];` included.
    ///
    /// Throws unless BlogCore's parser reads the body back as this very
    /// request, so the client never sends what the server would misread
    /// (a `:` in a title, `[E];` inside a field).
    public func wireMessage() throws(BlogClientError) -> [UInt8] {
        let bytes = Array(messageBody.utf8)
        // Bytes again: the server's FrameDecoder ends a message at these four
        // bytes, whatever Characters they belong to.
        guard !Self.contains(Frame.terminator, in: bytes) else { throw .invalidArgument(.terminatorInField) }
        let parsed: Request
        do {
            parsed = try Request(message: bytes)
        } catch {
            switch error {
            case .badArguments(let field): throw .invalidArgument(.field(field))
            case .unknownCommand: throw .invalidArgument(.field(.wrongFieldCount))
            }
        }
        // Only a `:` inside the title makes the parser split differently.
        guard parsed == self else { throw .invalidArgument(.colonInTitle) }
        return bytes + Frame.terminator
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    private static func checked(_ build: () throws(FieldError) -> Request) throws(BlogClientError) -> Request {
        do { return try build() } catch { throw .invalidArgument(.field(error)) }
    }
}
