import BlogCore
import BlogLimits
import BlogModel
import BlogWeb
import Foundation
import HTTPTypes
#if canImport(Glibc)
import Glibc
#endif

/// The Webmention endpoint (W3C Webmention 3.2) at `/webmention`: a form
/// with `source` and `target`, checked at once (both http(s) URLs, not
/// the same, the target a post of this site), then `202 Accepted` and
/// verified in the background (`WebmentionVerifier`); `400` with the
/// reason otherwise. Each address has a budget (`AddressBudget`, an IPv6
/// /64 counted as one), so a flood from one place gets `429`.
///
///     curl -d source=https://their.site/reply -d target=https://blog.example/alice/7.html \
///          https://blog.example/webmention        # 202
public struct WebmentionEndpoint: WebApplication {
    public static let path = "/webmention"
    /// Two URLs of `BlogService.webmentionURLLimit`, percent-encoded, and room.
    static let maxBody = 16 * 1024

    let service: BlogService
    let budget: AddressBudget
    let accepted: @Sendable () -> Void
    let clock: @Sendable () -> Moment

    /// - Parameters:
    ///   - budget: Webmentions per address (default: 1 a second, 20 at once).
    ///   - accepted: called after each one queued (`WebmentionVerifier.nudge`).
    public init(service: BlogService, budget: AddressBudget = AddressBudget(perSecond: 1, burst: 20),
                accepted: @escaping @Sendable () -> Void = {},
                clock: @escaping @Sendable () -> Moment = WebmentionEndpoint.monotonic) {
        self.service = service
        self.budget = budget
        self.accepted = accepted
        self.clock = clock
    }

    public func handles(path: String) -> Bool { path == Self.path }
    public func bodyLimit(path: String) -> Int { Self.maxBody }

    public func respond(to request: WebRequest) -> WebResponse {
        guard request.method == .post else {
            return Self.text(.methodNotAllowed, "Send Webmentions here as a POST form: source=…&target=…\n",
                             extra: [.allow: "POST"])
        }
        guard budget.take(for: AddressKey.of(request.peerAddress), at: clock()) else {
            return Self.text(.tooManyRequests, "Too many Webmentions from your address: wait a minute.\n",
                             extra: [.retryAfter: "60"])
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            return Self.text(.badRequest, "Send a form (application/x-www-form-urlencoded) with source and target.\n")
        }
        let form = FormData(bytes: request.body)
        guard !form.isRefused, let source = form["source"], let target = form["target"] else {
            return Self.text(.badRequest, "Both source and target are required.\n")
        }
        let hosts = request.headers[HTTPField.Name("Host")!].map { [$0] } ?? []
        switch service.receiveWebmention(source: source, target: target, hosts: hosts) {
        case .success:
            accepted()
            return Self.text(.accepted, "Accepted: the source will be verified, and the author will see it.\n")
        case .failure(.tooManyWaiting):
            return Self.text(.serviceUnavailable, WebmentionRefusal.tooManyWaiting.description + "\n",
                             extra: [.retryAfter: "3600"])
        case .failure(.database):
            return Self.text(.serviceUnavailable, WebmentionRefusal.database.description + "\n", extra: [.retryAfter: "10"])
        case .failure(let refusal):
            return Self.text(.badRequest, refusal.description + "\n")
        }
    }

    static func text(_ status: HTTPResponse.Status, _ text: String, extra: HTTPFields = [:]) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: extra)
    }

    /// The monotonic clock, as the budgets of the other doors read it.
    public static let monotonic: @Sendable () -> Moment = {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Moment(nanoseconds: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))
    }
}
