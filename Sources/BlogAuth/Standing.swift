
/// How a client's address has fared with its password hashes lately, best
/// first: the order in which waiting hashes are taken.
public enum Standing: Int, Sendable, Equatable, CaseIterable, Comparable {
    /// A register or login succeeded from it lately, and nothing failed since.
    case proven
    /// Nothing lately, good or bad: a first-time user, or a fresh address.
    case unknown
    /// Its latest hash failed (an unknown name, a wrong password).
    case doubtful

    public static func < (a: Standing, b: Standing) -> Bool { a.rawValue < b.rawValue }
}
