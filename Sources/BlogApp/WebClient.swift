import BlogCore
import BlogModel
import BlogPhotos
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import BlogAuth

/// The web client: register, log in, write, list, edit and delete posts
/// (to the trash, whence they can be restored), log out, and manage
/// Micropub tokens, in a browser, under `/app/`.
///
/// Every change goes through `Backend.perform`, which blogd wires to the
/// blog port's own budgets and lanes: a login here spends the same hash
/// budget as one over the protocol. A session is an access token of kind
/// `.session` in an HttpOnly, `SameSite=Lax` cookie (`Secure` over
/// HTTPS); every form carries a CSRF token, and a POST from another
/// origin is refused. No password is ever logged or shown.
///
///     let client = WebClient(backend: .init(
///         perform: { request, extras, session in server.perform(request, extras: extras, session: session) },
///         storePhoto: { photo, image, thumbnail, user, session in
///             service.storePhoto(photo, image: image, thumbnail: thumbnail, for: user, session: session) },
///         storage: store, tokens: AccessTokens(storage: store)))
///     let web = try await WebServer(folder: folder, host: "*", port: 8080,
///                                   logger: logger, application: client)
public struct WebClient: WebApplication {
    /// What the client needs of the server.
    public struct Backend: Sendable {
        /// Carries out a request as the blog port would, with its budgets;
        /// a new post gets the photos named (stored by `storePhoto`), and
        /// a post or an edit what else `PostExtras` holds.
        public var perform: @Sendable (Request, PostExtras, Session) -> Outcome
        /// Stores a processed photo for a user (`BlogService.storePhoto`).
        public var storePhoto: @Sendable (PostPhoto, [UInt8], [UInt8], Username, Session) -> Reply
        /// Reads: the user, their posts.
        public var storage: any BlogStorage
        public var tokens: AccessTokens
        /// Whether anyone may register (else only the admin adds users),
        /// asked at each request: a reload (SIGHUP) may change it.
        public var isRegistrationOpen: @Sendable () -> Bool
        public var registrationOpen: Bool { isRegistrationOpen() }
        /// Photo uploads per address, and decoded at once.
        public var uploads: UploadBudget
        public var photoLimits: PhotoLimits
        /// Brings a post back from its author's trash
        /// (`BlogService.restorePost`).
        public var restore: @Sendable (Username, Int64, Session) -> BlogService.RestoreOutcome
        /// Days a deleted post stays in the trash (`trash_days`), as the
        /// pages tell it.
        public var trashDays: Int
        /// The longest text of a post, in bytes: the configured
        /// `max_message_bytes`, the blog port's own bound, so that a post
        /// made here could have been sent there.
        public var maxTextBytes: Int
        /// Sets a user's password and ends their other ways in
        /// (`BlogService.setPassword`); nil: the settings page offers no
        /// change of password.
        public var setPassword: (@Sendable (Username, String) throws -> Void)?
        /// Replaces a blog's settings and rewrites its pages
        /// (`BlogService.setBlogSettings`); nil: the settings page offers
        /// no blog settings.
        public var setBlogSettings: (@Sendable (String, BlogSettings) throws -> Void)? = nil
        /// Changes of blog settings per address.
        public var blogSettingsBudget = BlogSettingsBudget()
        /// Fetches Micropub's photos by URL (bounded, no private
        /// addresses unless allowed); nil: only this blog's own photo URLs
        /// are taken.
        public var photoFetcher: (any OutgoingHTTP)?

        public init(perform: @escaping @Sendable (Request, PostExtras, Session) -> Outcome,
                    storePhoto: @escaping @Sendable (PostPhoto, [UInt8], [UInt8], Username, Session) -> Reply,
                    storage: any BlogStorage, tokens: AccessTokens, registrationOpen: Bool = true,
                    uploads: UploadBudget = UploadBudget(), photoLimits: PhotoLimits = PhotoLimits(),
                    restore: @escaping @Sendable (Username, Int64, Session) -> BlogService.RestoreOutcome = { _, _, _ in .failed },
                    trashDays: Int = BlogService.Settings.defaultTrashDays,
                    maxTextBytes: Int = Frame.defaultMaxMessageBytes,
                    setPassword: (@Sendable (Username, String) throws -> Void)? = nil) {
            self.maxTextBytes = maxTextBytes
            self.setPassword = setPassword
            self.perform = perform
            self.storePhoto = storePhoto
            self.storage = storage
            self.tokens = tokens
            self.isRegistrationOpen = { registrationOpen }
            self.uploads = uploads
            self.photoLimits = photoLimits
            self.restore = restore
            self.trashDays = trashDays
        }
    }

    let backend: Backend
    /// How long a session lasts without logging in again, in seconds.
    let sessionLifetime: Int
    /// The IndieAuth authorization endpoint's side (`/app/auth`); nil:
    /// none (the routes answer 404).
    let indieAuth: IndieAuthServer?

    public init(backend: Backend, sessionLifetime: Int = 30 * 86_400, indieAuth: IndieAuthServer? = nil) {
        self.backend = backend
        self.sessionLifetime = sessionLifetime
        self.indieAuth = indieAuth
    }

    /// Over HTTPS the cookies carry the `__Host-` prefix: a browser takes
    /// such a cookie only from this host over HTTPS, for the whole site,
    /// so no one on the plain-HTTP path (or a sibling domain) can plant one.
    static func sessionCookie(_ request: WebRequest) -> String {
        request.secure ? "__Host-blogd_session" : "blogd_session"
    }

    static func formCookie(_ request: WebRequest) -> String {
        request.secure ? "__Host-blogd_form" : "blogd_form"
    }
    /// A form holds one post's text, which percent-encoding may triple.
    var maxBody: Int { 3 * backend.maxTextBytes + 4096 }

    public func handles(path: String) -> Bool {
        path == "/app" || path.hasPrefix("/app/")
    }

    /// A large upload over its address's budget is refused unread, with a
    /// page that says so.
    public func refusal(beforeReading request: WebRequest) -> WebResponse? {
        guard Self.takesPhoto(request.path), let refused = PhotoUploads.charge(request, backend.uploads) else { return nil }
        return .page(AppPages.failure(String(decoding: refused.body, as: UTF8.self), viewer: nil), status: refused.status,
                     extra: [.retryAfter: refused.headers[.retryAfter] ?? "60"])
    }

    /// The new post form and the edit form may carry a photo.
    static func takesPhoto(_ path: String) -> Bool {
        guard case .edit = AppRoute(method: .post, path: path) else { return path == "/app/posts" }
        return true
    }

    /// The post form with a photo: multipart.
    static func isUpload(_ request: WebRequest) -> Bool {
        takesPhoto(request.path) && request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true
    }

    /// The post form may carry one photo; other forms only text.
    public func bodyLimit(for request: WebRequest) -> Int {
        Self.isUpload(request) ? backend.photoLimits.maxBytes + maxBody : maxBody
    }

    /// A photo over the limit is read to its end (up to three times the
    /// limit more) and dropped, so that the browser shows the page that
    /// says so, with the form as it was typed; a larger body is refused
    /// on its head.
    public func discardLimit(for request: WebRequest) -> Int {
        Self.isUpload(request) ? Self.discardFactor * backend.photoLimits.maxBytes : 0
    }

    /// Photo limits past which an upload is no longer read to its end.
    static let discardFactor = 3

    /// The server's own refusals as a page of the client, the limit named,
    /// with a way back. No session is looked up: this runs on an event loop.
    public func answer(_ refusal: WebRefusal, to request: WebRequest) -> WebResponse {
        let text = switch refusal {
        case .tooLarge where Self.isUpload(request): tooLargePhoto
        case .tooLarge: "The form is larger than \(WebRefusal.size(maxBody)): the text of a post is at most \(WebRefusal.size(backend.maxTextBytes)). Nothing was changed."
        default: refusal.text
        }
        var extra: HTTPFields = [:]
        if let seconds = refusal.retryAfter { extra[.retryAfter] = String(seconds) }
        return .page(AppPages.failure(text, viewer: nil), status: refusal.status, extra: extra)
    }

    var tooLargePhoto: String {
        "The photo is too large: a photo may be at most \(WebRefusal.size(backend.photoLimits.maxBytes)). Nothing was published."
    }

    /// Logins, registrations and changes of password wait for scrypt.
    public func waitsForPasswordHash(_ request: WebRequest) -> Bool {
        request.method == .post
            && (request.path == "/app/login" || request.path == "/app/register" || request.path == "/app/settings/password")
    }

    public func bodyLimit(path: String) -> Int {
        Self.takesPhoto(path) ? backend.photoLimits.maxBytes + maxBody : maxBody
    }

    public func respond(to request: WebRequest) -> WebResponse {
        if request.discardedBodyBytes > 0 {
            // Bytes read and dropped cost the address's upload budget, a
            // photo limit's worth an upload, whoever sent them, signed in
            // or not.
            let limit = backend.photoLimits.maxBytes
            backend.uploads.charge((request.discardedBodyBytes + limit - 1) / limit, for: request.peerAddress)
        }
        let route = AppRoute(method: request.method, path: request.path)
        // An app's own POST (no cookie, no form of ours): not a browser's.
        if case .redeemAuthorization = route, let indieAuth { return redeemAtAuthorization(request, indieAuth) }
        if request.method == .post, !Self.sameOrigin(request) {
            return .page(AppPages.failure("This form came from another site.", viewer: nil), status: .forbidden)
        }
        if case .script = route {
            return WebResponse(status: .ok, contentType: "text/javascript; charset=utf-8", body: Array(AppPages.script.utf8),
                               headers: [.cacheControl: "no-cache"])
        }
        let signedIn: SignedIn?
        do {
            signedIn = try self.signedIn(request)
        } catch {
            return .page(AppPages.failure("The database did not answer; try again in a moment.", viewer: nil),
                         status: .serviceUnavailable)
        }
        switch route {
        case .home:
            guard let signedIn else { return .redirect("/app/login") }
            return home(signedIn, notice: Self.notice(request.query))
        case .showLogin, .showRegister:
            if signedIn != nil { return .redirect(Self.loginReturn(request) ?? "/app/") }
            return accountForm(register: route == .showRegister, request: request)
        case .login, .register:
            return account(register: route == .register, request: request)
        case .logout:
            return logout(signedIn, request)
        case .create:
            guard let signedIn else { return .redirect("/app/login") }
            return create(signedIn, request)
        case .showEdit(let id):
            guard let signedIn else { return .redirect("/app/login") }
            return showEdit(signedIn, id: id)
        case .edit(let id):
            guard let signedIn else { return .redirect("/app/login") }
            return edit(signedIn, id: id, request)
        case .delete(let id):
            guard let signedIn else { return .redirect("/app/login") }
            return delete(signedIn, id: id, request)
        case .trash:
            guard let signedIn else { return .redirect("/app/login") }
            return trash(signedIn, notice: Self.notice(request.query))
        case .restore(let id):
            guard let signedIn else { return .redirect("/app/login") }
            return restore(signedIn, id: id, request)
        case .settings:
            guard let signedIn else { return .redirect("/app/login") }
            return settings(signedIn, newSecret: nil, error: nil, notice: Self.notice(request.query))
        case .issueToken:
            guard let signedIn else { return .redirect("/app/login") }
            return issueToken(signedIn, request)
        case .revokeToken(let id):
            guard let signedIn else { return .redirect("/app/login") }
            return revokeToken(signedIn, id: id, request)
        case .changePassword:
            guard let signedIn else { return .redirect("/app/login") }
            return changePassword(signedIn, request)
        case .endSessions:
            guard let signedIn else { return .redirect("/app/login") }
            return logout(signedIn, request, everywhere: true)
        case .authorize:
            guard let indieAuth else { return .page(AppPages.notFound(signedIn?.viewer), status: .notFound) }
            return authorize(signedIn, request, indieAuth)
        case .approveAuthorization:
            guard let indieAuth else { return .page(AppPages.notFound(signedIn?.viewer), status: .notFound) }
            guard let signedIn else { return .redirect("/app/login") }
            return approve(signedIn, request, indieAuth)
        case .redeemAuthorization:
            return .page(AppPages.notFound(signedIn?.viewer), status: .notFound)
        case .saveBlogSettings:
            guard let signedIn else { return .redirect("/app/login") }
            return saveBlogSettings(signedIn, request)
        case .methodNotAllowed:
            return .page(AppPages.failure("That cannot be done here.", viewer: signedIn?.viewer), status: .methodNotAllowed,
                         extra: [.allow: "GET, HEAD, POST"])
        case .script, .notFound:
            return .page(AppPages.notFound(signedIn?.viewer), status: .notFound)
        }
    }

    /// A browser sends `Origin` with every POST; one naming another site
    /// (or `null`, a sandboxed frame) is a forged form.
    static func sameOrigin(_ request: WebRequest) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.headers[Self.hostField] else { return false }
        return origin == "https://" + host || origin == "http://" + host
    }

    private static let hostField = HTTPField.Name("Host")!

    /// The line shown after a change that redirected here.
    static func notice(_ query: String) -> String? {
        switch FormData(query: query)["done"] {
        case "posted": "Published."
        case "edited": "Saved."
        case "deleted": "Moved to the trash."
        case "restored": "Restored."
        case "password": "Password changed. Every other session and every login on the blog port has ended; Micropub tokens stay."
        case "blog": "Blog settings saved; your blog's pages show them."
        default: nil
        }
    }
}
