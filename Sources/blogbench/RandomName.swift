/// User names nobody has used: a prefix and random letters and digits.
///
/// Random rather than counted, so the login flood meets no per-name
/// throttle and reruns against the same database never collide.
enum RandomName {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// `prefix` and `length` random characters (the whole stays within the
    /// 32 characters a user name may have).
    static func make(_ prefix: String, length: Int = 12, using random: inout SplitMix64) -> String {
        var bytes = Array(prefix.utf8)
        for _ in 0..<length { bytes.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// As above, from a fresh random seed.
    static func make(_ prefix: String, length: Int = 12) -> String {
        var random = SplitMix64(seed: .random(in: .min ... .max))
        return make(prefix, length: length, using: &random)
    }
}
