import HTTPTypes

/// A request the web server refuses itself, before or while reading its
/// body, or because the application cannot take it now. The application
/// words the answer (`WebApplication.answer(_:to:)`), so that each path
/// refuses in its own form: Micropub as a JSON error, the web client as
/// one of its pages.
public enum WebRefusal: Sendable, Equatable {
    /// The body is over `limit` bytes (declared so, or sent so): `413`.
    case tooLarge(limit: Int)
    /// Bodies held at once are at their bound, in all or for the
    /// client's address: `503`, try again in 5 seconds.
    case tooManyBodies
    /// Too many requests wait for the application's threads: `503`, try
    /// again in a second.
    case busy
    /// The server is stopping: `503`.
    case stopping

    public var status: HTTPResponse.Status {
        switch self {
        case .tooLarge: .contentTooLarge
        case .tooManyBodies, .busy, .stopping: .serviceUnavailable
        }
    }

    /// Seconds a client should wait before it tries again, when it may.
    public var retryAfter: Int? {
        switch self {
        case .tooLarge, .stopping: nil
        case .tooManyBodies: 5
        case .busy: 1
        }
    }

    /// The refusal in a sentence.
    public var text: String {
        switch self {
        case .tooLarge(let limit): "The request body is larger than \(Self.size(limit)), the limit here."
        case .tooManyBodies: "Too many uploads at once: try again in a moment."
        case .busy: "Too busy: try again in a moment."
        case .stopping: "The server is stopping."
        }
    }

    /// The answer of an application that words refusals no way of its
    /// own: the sentence as plain text.
    public var plainResponse: WebResponse {
        var headers: HTTPFields = [:]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }

    /// A byte count as people read it: `10 MiB`, `1.5 MiB`, `64 KiB`.
    public static func size(_ bytes: Int) -> String {
        func shown(_ value: Double, _ unit: String) -> String {
            let rounded = (value * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded)) \(unit)" : "\(rounded) \(unit)"
        }
        if bytes >= 1 << 20 { return shown(Double(bytes) / Double(1 << 20), "MiB") }
        if bytes >= 1 << 10 { return shown(Double(bytes) / Double(1 << 10), "KiB") }
        return "\(bytes) bytes"
    }
}
