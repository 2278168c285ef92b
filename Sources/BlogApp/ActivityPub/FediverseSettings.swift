import BlogCore
import BlogModel
import BlogPages
import BlogWeb
import Foundation
import HTTPTypes

/// The web client's Fediverse settings, `/app/settings/fediverse`: whether
/// follows wait for approval, the follows waiting (Approve, Refuse), the
/// followers (Remove), the blocks (Unblock) and a form to block an actor
/// or a domain. Plain forms with the session's CSRF token, no script;
/// every change goes through `BlogService` (the rules `blogd followers`,
/// `blogd block` and the others follow too) and is charged to the
/// address's budget of changes. Bad input is refused with the rule it
/// broke, the page shown again with what was typed, and nothing changes.
public struct FediverseSettings: WebApplication {
    public static let path = "/app/settings/fediverse"
    /// Followers shown on one page.
    static let pageSize = 50
    /// Follows waiting shown (the oldest wait on a later look).
    static let pendingShown = 200

    let client: WebClient
    let service: BlogService
    let budget: BlogSettingsBudget

    /// - Parameter budget: changes per address; a block may rewrite the
    ///   blog's pages (the responses it removes), so it is bounded like
    ///   the blog's other settings, with room for approving a few follows
    ///   in a row.
    public init(client: WebClient, service: BlogService,
                budget: BlogSettingsBudget = BlogSettingsBudget(perMinute: 30, burst: 20)) {
        self.client = client
        self.service = service
        self.budget = budget
    }

    public func handles(path: String) -> Bool { path == Self.path || path.hasPrefix(Self.path + "/") }
    /// An actor URL is at most 2,048 bytes, three times that encoded.
    public func bodyLimit(path: String) -> Int { 8192 }

    /// What a refused form typed, shown again.
    struct Typed: Equatable {
        var kind = "actor"
        var value = ""
    }

    public func respond(to request: WebRequest) -> WebResponse {
        let signedIn: WebClient.SignedIn?
        do {
            signedIn = try client.signedIn(request)
        } catch {
            return .page(AppPages.failure("The database did not answer; try again in a moment.", viewer: nil),
                         status: .serviceUnavailable)
        }
        guard let signedIn else { return .redirect("/app/login") }
        let action = request.path.dropFirst(Self.path.count).split(separator: "/").map(String.init)
        if action.isEmpty {
            guard request.method == .get || request.method == .head else {
                return .page(AppPages.failure("That cannot be done here.", viewer: signedIn.viewer), status: .methodNotAllowed,
                             extra: [.allow: "GET, HEAD"])
            }
            let query = FormData(query: request.query)
            return page(signedIn, page: Self.pageNumber(query["page"]), notice: Self.notice(query["done"]))
        }
        guard ["approval", "approve", "refuse", "remove", "block", "unblock"].contains(action.joined(separator: "/")) else {
            return .page(AppPages.notFound(signedIn.viewer), status: .notFound)
        }
        guard request.method == .post else {
            return .page(AppPages.failure("That cannot be done here.", viewer: signedIn.viewer), status: .methodNotAllowed,
                         extra: [.allow: "POST"])
        }
        let form = FormData(bytes: request.body)
        guard WebClient.sameOrigin(request), CSRF.check(form["csrf"], session: signedIn.secret) else {
            return WebClient.forged(signedIn)
        }
        return change(action[0], form, signedIn, request)
    }

    private func change(_ action: String, _ form: FormData, _ signedIn: WebClient.SignedIn,
                        _ request: WebRequest) -> WebResponse {
        let name = signedIn.user.name
        let typed = Typed(kind: form["kind"] ?? "actor", value: form["value"] ?? "")
        func refused(_ error: String, _ status: HTTPResponse.Status) -> WebResponse {
            page(signedIn, page: 1, error: error, typed: typed, status: status)
        }
        guard !form.isRefused else { return refused(WebClient.notUTF8, .badRequest) }
        // Checked before the budget: a typing mistake costs nothing.
        var target: BlockTarget?
        var actor = ""
        switch action {
        case "block", "unblock":
            switch BlockInput.target(kind: typed.kind, value: typed.value) {
            case .success(let found): target = found
            case .failure(let error): return refused("Not done: \(error.description).", .badRequest)
            }
        case "approve", "refuse", "remove":
            actor = form["actor"] ?? ""
            guard !actor.isEmpty, actor.utf8.count <= BlockInput.maxActorBytes else {
                return refused("Not done: no follower named.", .badRequest)
            }
        default:
            guard let value = form["approve"], value == "on" || value == "off" else {
                return refused("Not done: choose on or off.", .badRequest)
            }
        }
        guard budget.take(for: request.peerAddress) else {
            return refused("Too many changes from your address: wait a minute and try again.", .tooManyRequests)
        }
        let done: String
        do {
            switch action {
            case "approval":
                try service.setApprovesFollowersByHand(form["approve"] == "on", of: name)
                done = "approval"
            case "approve":
                try service.approveFollower(actor, of: name)
                done = "approved"
            case "refuse":
                try service.refuseFollower(actor, of: name)
                done = "refused"
            case "remove":
                try service.removeFollower(actor, of: name)
                done = "removed"
            case "block":
                try service.block(target!, of: name)
                done = "blocked"
            default:
                try service.unblock(target!, of: name)
                done = "unblocked"
            }
        } catch {
            switch error {
            case .storage: return refused(WebClient.failed, .serviceUnavailable)
            case .noSuchFollower, .notPending, .noSuchBlock: return refused("Not done: \(error.description).", .notFound)
            default: return refused("Not done: \(error.description).", .badRequest)
            }
        }
        return .redirect(Self.path + "?done=" + done)
    }

    static func notice(_ done: String?) -> String? {
        switch done {
        case "approval": "Saved."
        case "approved": "Approved: the follower's server is sent an Accept, and it gets your posts."
        case "refused": "Refused: the follower's server is sent a Reject."
        case "removed": "Removed: it gets no more posts, and its server is sent a Reject of its follow."
        case "blocked": "Blocked: its follows, replies and likes are refused and removed."
        case "unblocked": "Unblocked."
        default: nil
        }
    }

    /// `?page=N`: 1 to 100,000; anything else the first.
    static func pageNumber(_ text: String?) -> Int {
        guard let text, (1...6).contains(text.utf8.count), let number = Int(text), number >= 1 else { return 1 }
        return min(number, 100_000)
    }

    private func page(_ signedIn: WebClient.SignedIn, page number: Int, notice: String? = nil, error: String? = nil,
                      typed: Typed = Typed(), status: HTTPResponse.Status = .ok) -> WebResponse {
        let name = signedIn.user.name
        let view: FediverseView
        do {
            let accepted = try service.followerCount(of: name, state: .accepted)
            view = FediverseView(
                byHand: try service.approvesFollowersByHand(of: name),
                pending: try service.followers(of: name, state: .pending, limit: Self.pendingShown),
                pendingCount: try service.followerCount(of: name, state: .pending),
                followers: try service.followers(of: name, state: .accepted, offset: (number - 1) * Self.pageSize,
                                                 limit: Self.pageSize),
                followerCount: accepted, page: number, pages: max(1, (accepted + Self.pageSize - 1) / Self.pageSize),
                blocks: try service.blocks(of: name))
        } catch {
            return WebClient.unavailable(signedIn)
        }
        return .page(AppPages.fediverse(signedIn.viewer, view, notice: notice, error: error, typed: typed), status: status)
    }
}
