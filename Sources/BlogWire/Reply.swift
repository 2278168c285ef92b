/// A reply the server sends, exactly as PROTOCOL.md spells it.
///
/// The first group is the original protocol of the iPhone client; the second
/// is what blogd adds. `bytes` is the wire form, terminator included.
public enum Reply: String, Sendable, CaseIterable {
    case registered = "reg:OK"
    case nameTaken = "reg:NA"
    case loggedIn = "log:OK"
    case loginRefused = "log:NA"
    case posted = "post:OK"
    case postFailed = "post:ERR"
    case databaseError = "err:DB"

    case postRefused = "post:NA"
    case unknownCommand = "err:CMD"
    case badArguments = "err:ARGS"
    case tooLarge = "err:SIZE"
    case timedOut = "err:TIME"
    case busy = "err:BUSY"

    /// The reply as sent on the wire, with its `[E];` terminator.
    public var bytes: [UInt8] { Self.wireForms[self]! }

    /// Bytes on the wire, terminator included.
    public var byteCount: Int { bytes.count }

    private static let wireForms = Dictionary(uniqueKeysWithValues: allCases.map {
        ($0, Array(($0.rawValue + Frame.terminatorString).utf8))
    })

    /// Parses one reply from its wire form (terminator optional).
    public init?(wire: some StringProtocol) {
        var text = String(wire)
        if text.hasSuffix(Frame.terminatorString) { text.removeLast(Frame.terminatorString.count) }
        self.init(rawValue: text)
    }
}

extension Reply {
    /// Replies after which the server closes the connection, whatever its
    /// mode: the peer broke a limit, or must come back later.
    public var closesConnection: Bool {
        self == .tooLarge || self == .timedOut || self == .busy
    }
}
