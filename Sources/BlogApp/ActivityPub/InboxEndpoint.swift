import BlogLimits
import BlogWeb
import Foundation
import HTTPTypes
import Synchronization

/// The ActivityPub inboxes: each blog's `POST /ap/NAME/inbox` and the
/// server's shared `POST /ap/inbox`, which behave the same (the blog is
/// found from what the activity is about). In order, cheapest first:
///
/// 1. the sending address's budget (`AddressBudget`, an IPv6 /64 as one),
///    on the request's head: `429` with `Retry-After`, the body unread;
/// 2. the body at most `InboundActivity.maxBytes`: `413`;
/// 3. the body parsed (`InboundActivity.parse`): `400` with the reason,
///    before any key is fetched;
/// 4. the HTTP signature (`InboxSignatureChecking`): `401` when missing
///    or bad, or when its signer is not the activity's `actor`; `503` at
///    once when `maxChecking` requests already wait for theirs (a key
///    fetch can take seconds, and the web client's threads are shared);
/// 5. the blog blocking the actor or its host: `403`, nothing kept;
/// 6. the activity done (`InboxDispatch`): `202`, also for everything
///    ignored; `503` when the storage failed.
///
///     curl -X POST -H 'Signature: keyId="…",…' -H "Digest: SHA-256=…" \
///          --data-binary @follow.json https://blog.example/ap/alice/inbox   # 202
public struct InboxEndpoint: WebApplication {
    let addresses: InboxAddresses
    let signatures: any InboxSignatureChecking
    let actions: any InboxActions
    let profiles: (any InboxActorProfiles)?
    let budget: AddressBudget
    let clock: @Sendable () -> Moment
    let maxChecking: Int
    private let checking = Checking()

    /// - Parameters:
    ///   - baseURL: `BASE`, what our actor and post ids start with.
    ///   - budget: inbox POSTs per address (default: 5 a second, 50 at once:
    ///     a busy instance delivers in bursts).
    ///   - profiles: where a follower's inbox is read when `signatures`
    ///     does not bring it (`FetchedActorProfiles`).
    ///   - maxChecking: requests checking their signature at once (each
    ///     may wait for a key fetch on one of the page server's threads).
    public init(baseURL: String, signatures: any InboxSignatureChecking, actions: any InboxActions,
                profiles: (any InboxActorProfiles)? = nil,
                budget: AddressBudget = AddressBudget(perSecond: 5, burst: 50), maxChecking: Int = 4,
                clock: @escaping @Sendable () -> Moment = WebmentionEndpoint.monotonic) {
        self.maxChecking = max(1, maxChecking)
        addresses = InboxAddresses(base: baseURL)
        self.signatures = signatures
        self.actions = actions
        self.profiles = profiles
        self.budget = budget
        self.clock = clock
    }

    public func handles(path: String) -> Bool { InboxAddresses.inbox(ofPath: path) != nil }
    public func bodyLimit(path: String) -> Int { InboundActivity.maxBytes }

    /// Over its budget, an address is refused before its body is read.
    public func refusal(beforeReading request: WebRequest) -> WebResponse? {
        guard budget.take(for: AddressKey.of(request.peerAddress), at: clock()) else {
            return Self.text(.tooManyRequests, "Too many activities from your address: wait a minute.\n",
                             extra: [.retryAfter: "60"])
        }
        return nil
    }

    public func respond(to request: WebRequest) -> WebResponse {
        guard request.method == .post else {
            return Self.text(.methodNotAllowed, "Inboxes take signed POSTs of activities.\n", extra: [.allow: "POST"])
        }
        guard let named = InboxAddresses.inbox(ofPath: request.path) else { return Self.text(.notFound, "No such inbox.\n") }
        do throws(InboxActionError) {
            if let name = named, try actions.blog(named: name) == nil { return Self.text(.notFound, "No such inbox.\n") }
            let activity: InboundActivity
            do throws(InboundActivityError) {
                activity = try InboundActivity.parse(request.body)
            } catch {
                return Self.text(.badRequest, error.description + "\n")
            }
            let signer: InboxSigner
            guard let checked = checkSignature(request) else {
                return Self.text(.serviceUnavailable, "Too many activities are being checked: try again later.\n",
                                 extra: [.retryAfter: "10"])
            }
            switch checked {
            case .success(let found): signer = found
            case .failure(let refusal) where refusal.isTemporary:
                return Self.text(.serviceUnavailable, refusal.description + "\n", extra: [.retryAfter: "60"])
            case .failure(let refusal):
                return Self.text(.unauthorized, refusal.description + "\n")
            }
            guard signer.actor == activity.actor else {
                return Self.text(.unauthorized, "The request is not signed by the activity's actor.\n")
            }
            switch try InboxDispatch(addresses: addresses, actions: actions, profiles: profiles, inboxBlog: named)
                .handle(activity, signer: signer) {
            case .done: return Self.text(.accepted, "Accepted.\n")
            case .ignored: return Self.text(.accepted, "Accepted; nothing here to do with it.\n")
            case .blocked: return Self.text(.forbidden, "This blog does not take activities from you.\n")
            case .refused(let reason): return Self.text(.badRequest, reason + "\n")
            }
        } catch .tooManyWaiting {
            return Self.text(.serviceUnavailable, "The blog has too many responses waiting for approval.\n",
                             extra: [.retryAfter: "3600"])
        } catch {
            return Self.text(.serviceUnavailable, "The blog could not store that now; try again later.\n",
                             extra: [.retryAfter: "10"])
        }
    }

    /// The signer, or nil when `maxChecking` checks already run.
    private func checkSignature(_ request: WebRequest) -> Result<InboxSigner, InboxSignatureRefusal>? {
        let (taken, _) = checking.count.wrappingAdd(1, ordering: .relaxed)
        defer { checking.count.wrappingSubtract(1, ordering: .relaxed) }
        guard taken < maxChecking else { return nil }
        return signatures.signer(of: request)
    }

    /// Requests checking their signature now, shared by the endpoint's copies.
    private final class Checking: Sendable {
        let count = Atomic<Int>(0)
    }

    static func text(_ status: HTTPResponse.Status, _ text: String, extra: HTTPFields = [:]) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: extra)
    }
}
