/// Why an inbox body was refused (`400`, the description as the answer's
/// text); nothing is stored or fetched for it.
public enum InboundActivityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Over `InboundActivity.maxBytes`.
    case tooLarge
    /// Arrays and objects nested past `InboundActivity.maxDepth`.
    case tooDeep
    /// Not JSON, or JSON whose top is not an object.
    case notAnObject
    /// A field the activity needs is absent.
    case missing(String)
    /// A field of the wrong JSON type (a number for an id, ...).
    case wrongType(String)
    /// A field that must be an http(s) URL (at most `maxURLBytes`) is not.
    case notAURL(String)
    /// An embedded object's actor is not the activity's own actor
    /// (`Undo` of someone else's Follow, a Note attributed to another).
    case notTheActors(String)

    public var description: String {
        switch self {
        case .tooLarge: "The activity is larger than \(InboundActivity.maxBytes / 1024) KiB."
        case .tooDeep: "The activity nests deeper than \(InboundActivity.maxDepth) arrays and objects."
        case .notAnObject: "Send one activity as a JSON object."
        case .missing(let field): "The activity has no \(field)."
        case .wrongType(let field): "\(field) has the wrong type."
        case .notAURL(let field): "\(field) must be an http or https URL."
        case .notTheActors(let field): "\(field) is not the activity's actor."
        }
    }
}
