
/// `BLOGD_*` variables blogd does not know. A misspelt key in the config
/// file is an error; a misspelt variable would otherwise be ignored
/// without a word, so `blogd` warns about each at start, naming the
/// variable it probably meant.
///
///     EnvironmentCheck.unknown(["BLOGD_REGISTRATOIN": "closed"])
///     // [("BLOGD_REGISTRATOIN", "BLOGD_REGISTRATION")]
public enum EnvironmentCheck {
    /// Variables of the `BLOGD_` family that are not settings: the test
    /// suite's and the scripts' own, read by them and not by blogd.
    public static let notSettings: Set<String> = [
        "BLOGD_BIN", "BLOGD_POSTGRES_BIN", "BLOGD_PHOTO_MEASURE", "BLOGD_PHOTO_MEASURE_MMAP", "BLOGD_UNIT_EXPOSURE",
        "BLOGD_TLS_BIND", "BLOGD_TLS_PEM", "BLOGD_BLOG_SERVER", "BLOGD_PYTHON", "BLOGD_SEARCH_BENCH", "BLOGD_SEARCH_POSTS",
        "BLOGD_HERD_PYTHON",
    ]

    /// Prefixes of such families: `BLOGD_REQUIRE_POSTGRES`,
    /// `BLOGD_SKIP_FEED_TOOLS`, `BLOGD_CLUSTER_DIR`...
    public static let notSettingPrefixes = ["BLOGD_REQUIRE_", "BLOGD_SKIP_", "BLOGD_CLUSTER_"]

    /// Each unknown `BLOGD_` name in `environment`, sorted, with the
    /// setting's variable nearest to it (if any is close).
    public static func unknown(_ environment: [String: String]) -> [(name: String, nearest: String?)] {
        let known = Set(ConfigKeys.all.map(\.environmentVariable))
        return environment.keys.sorted().compactMap { name in
            guard name.hasPrefix("BLOGD_"), !known.contains(name), !notSettings.contains(name),
                  !notSettingPrefixes.contains(where: name.hasPrefix) else { return nil }
            return (name, nearest(to: name, among: known))
        }
    }

    static func nearest(to name: String, among known: Set<String>) -> String? {
        let scored = known.sorted().map { (name: $0, distance: ConfigKeys.editDistance(name, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        return best.distance <= max(3, (best.name.count - 6) / 3) ? best.name : nil
    }
}
