/// Constants of the message framing shared by both directions.
public enum Frame {
    /// Every message, both ways, ends with these four bytes.
    public static let terminatorString = "[E];"
    public static let terminator: [UInt8] = Array(terminatorString.utf8)
    /// The default limit on one message's size, terminator excluded.
    public static let defaultMaxMessageBytes = 64 * 1024

    /// `command:field:...[E];`, the wire form of one message. It does not
    /// check the fields: see `Request.messageBody` for requests that do.
    public static func encode(_ command: String, _ fields: [String]) -> [UInt8] {
        var bytes = Array(command.utf8)
        for field in fields {
            bytes.append(UInt8(ascii: ":"))
            bytes += field.utf8
        }
        return bytes + terminator
    }

    /// Space, tab, CR and LF: skipped before a message so netcat lines work.
    @inlinable
    public static func isSkippableWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}
