import BlogWire
import Histogram

/// The requests of the well-behaved client, each measured on its own:
/// an attack on password hashing should slow logins, not unknown commands.
enum ProbeRequest: String, CaseIterable, Sendable, Encodable {
    /// `bench:probe`: answered `err:CMD` by the parser alone, the cheapest request.
    case unknown
    /// A small post under the client's valid lease: the database and the page.
    case newpost
    /// A login with the right password: one password hash.
    case login
    /// `GET /index.html` from the page server (only with `--http-port`).
    case page

    /// The reply text (the status line, for a page) that counts as served.
    var expected: String {
        switch self {
        case .unknown: Reply.unknownCommand.rawValue
        case .newpost: Reply.posted.rawValue
        case .login: Reply.loggedIn.rawValue
        case .page: "HTTP/1.1 200 OK"
        }
    }
}

/// What the well-behaved client measured for one kind of request.
struct ProbeStats: Sendable {
    /// Latency of the requests that got the expected reply, in microseconds:
    /// a fast `err:BUSY` must not make a refused client look well served.
    var latency = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: ClientStats.highestMicroseconds,
                                    numberOfSignificantValueDigits: .three)
    /// Requests that ended, answered or failed (not those the end cut off).
    var count = 0
    var ok = 0
    /// Requests still waiting when the run ended (not failures: they might
    /// have been answered a moment later).
    var unfinished = 0
    /// The longest an unfinished request had waited, in nanoseconds.
    var unfinishedWaitNanoseconds: UInt64 = 0
    /// Failed requests by reason: a socket failure (`timeout recv`,
    /// `connect ECONNREFUSED`, ...), `err:BUSY`, or `reply <text>` for any
    /// other wrong reply.
    var failuresByReason: [String: Int] = [:]

    var failures: Int { failuresByReason.values.reduce(0, +) }

    mutating func record(_ outcome: OneShotOutcome, expected: String, nanoseconds: UInt64) {
        switch outcome {
        case .cut:
            unfinished += 1
            unfinishedWaitNanoseconds = max(unfinishedWaitNanoseconds, nanoseconds)
            return
        case .reply(let text) where text == expected:
            ok += 1
            latency.record(min(max(nanoseconds / 1000, 1), ClientStats.highestMicroseconds))
        case .reply(let text):
            failuresByReason[text == Reply.busy.rawValue ? text : "reply \(text)", default: 0] += 1
        case .failed(let failure):
            failuresByReason[failure.reason, default: 0] += 1
        }
        count += 1
    }

    /// Milliseconds at `percentile` of the answered requests; nil with none.
    func milliseconds(atPercentile percentile: Double) -> Double? {
        latency.totalCount > 0 ? Double(latency.valueAtPercentile(percentile)) / 1000 : nil
    }

    var maxMilliseconds: Double? {
        latency.totalCount > 0 ? Double(latency.maxRecorded) / 1000 : nil
    }
}
