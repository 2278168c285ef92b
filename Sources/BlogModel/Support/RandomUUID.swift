import Foundation

extension UUID {
    /// A version 4 (random) UUID from the system's generator (`getrandom`),
    /// without Foundation's `UUID()`, which opens, reads and closes
    /// `/dev/urandom` each time on Linux: three system calls a post.
    ///
    ///     let token = UUID.random()
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = raw[6] & 0x0F | 0x40  // version 4
            raw[8] = raw[8] & 0x3F | 0x80  // RFC 4122 variant
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}
