/// The JSON-LD context every document of ours names: ActivityStreams, the
/// security vocabulary (`publicKey`), and the few terms Mastodon added
/// that we use, defined as Mastodon defines them.
public enum ActivityContext {
    public static let streams = "https://www.w3.org/ns/activitystreams"
    public static let security = "https://w3id.org/security/v1"
    /// The audience "everyone": a post's `to`.
    public static let publicAudience = "https://www.w3.org/ns/activitystreams#Public"
    /// The type of every document served: `application/activity+json`.
    public static let mediaType = "application/activity+json"

    /// `@context`'s value.
    public static let value: ActivityJSON = .array([
        .string(streams), .string(security),
        .object([
            ("manuallyApprovesFollowers", "as:manuallyApprovesFollowers"),
            ("sensitive", "as:sensitive"),
            ("Hashtag", "as:Hashtag"),
            ("toot", "http://joinmastodon.org/ns#"),
            ("discoverable", "toot:discoverable"),
        ]),
    ])

    /// `object` with `@context` put first: a document served on its own
    /// (an object inside an activity carries none).
    public static func document(_ object: ActivityJSON) -> ActivityJSON {
        guard case .object(let fields) = object else { return object }
        return .object([("@context", value)] + fields.filter { $0.0 != "@context" })
    }
}
