import BlogAuth

/// The scopes an app may ask for and a user may grant: Micropub's own
/// (`AccessTokens.Scope`: create, update, delete, media, the same words a
/// token from the settings page carries, so Micropub checks both alike)
/// and IndieAuth's `profile` (the user's name and URL in the answer).
/// Other words an app asks for (`draft`, `email`) are not offered and
/// not granted.
enum IndieAuthScope {
    static let profile = "profile"
    static let offered: [String] = AccessTokens.Scope.allCases.map(\.rawValue) + [profile]

    /// The offered scopes among `words`, in the offered order, once each.
    static func granted(_ words: [String]) -> [String] {
        let set = Set(words)
        return offered.filter(set.contains)
    }

    /// The words of a space-separated `scope` parameter.
    static func words(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
    }
}
