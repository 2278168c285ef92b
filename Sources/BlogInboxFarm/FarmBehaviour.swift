import Foundation

/// How one host of an `InboxFarm` answers the POSTs to its inboxes.
///
/// A host's behaviour may change while the farm runs (`InboxFarm.set`):
/// a test turns a failing host good, or releases a held one.
public enum FarmBehaviour: Sendable, Equatable {
    /// `202 Accepted`, at once: a healthy Mastodon.
    case accept
    /// `status` (a 5xx) while the farm's clock is before `until`, then 202:
    /// a server down for a while.
    case failUntil(Date, status: Int = 503)
    /// `status` for the first `count` POSTs, then 202.
    case failFirst(Int, status: Int = 503)
    /// Reads the request and never answers; the connection stays open
    /// until the sender gives up or the farm stops.
    case silent
    /// 202 after `seconds`.
    case slow(seconds: Double)
    /// Holds each request until `InboxFarm.release(host:)` (then 202): a
    /// slow host whose slowness the test ends, not a timer.
    case held
    /// `status` (a 4xx) every time: a server that will not take it.
    case refuse(status: Int = 400)
}

/// What the farm does with one request, decided when it has arrived whole.
enum FarmDecision: Sendable, Equatable {
    case answer(status: Int, after: Double)
    case hold
    case silence
}
