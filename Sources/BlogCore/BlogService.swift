import Dispatch
import Foundation
import Logging
import Metrics
import Synchronization
import BlogWire
import BlogModel
import BlogPages
import BlogAuth

/// The three operations of the protocol, from message bytes to reply.
///
/// Synchronous by design: the server's lanes call it on Dispatch, and it
/// blocks only that request while it hashes or commits. It speaks to the
/// database through `BlogStorage` only, and renders pages from it.
public final class BlogService: Sendable {
    public struct Settings: Sendable {
        /// Accept `newpost` from anyone, as the original did.
        public var openPosting: Bool
        public var scrypt: ScryptParameters
        /// How long a login lets the same address post, in seconds.
        public var loginLease: Double
        /// Posts per archive page; the main page holds up to twice as many.
        public var pageSize: Int
        /// Escaped text a page group holds at most (see `PageLayout`).
        public var pageBytes: Int
        /// When repeated failed logins lock a user out from an address.
        public var loginThrottle: LoginPolicy
        /// Seconds the storage calls of one post (or of a register, once
        /// its password is hashed) may take together.
        public var storageDeadline: Double
        /// Whether `register` creates users; when closed it answers
        /// `reg:NA` and the admin adds users (`blogd adduser`).
        public var registrationOpen: Bool
        /// Where the public folder is served, for the feeds' absolute links.
        public var baseURL: String
        /// Days a post its author deleted stays in the trash before it is
        /// purged (`purgeTrash`).
        public var trashDays: Int

        /// Thirty days: a month to notice a mistaken deletion.
        public static let defaultTrashDays = 30

        /// What the feeds' ids are made of (`Feeds.idBase`); nil: `baseURL`.
        public var feedIDBase: String?
        /// Every page names the Micropub endpoint in its head (the web
        /// client and Micropub are on): `micropub` at the public folder's
        /// root, a relative link, so that the pages do not depend on the
        /// address an instance is reached at.
        public var pagesNameMicropub = false
        /// Every page names the Webmention endpoint (`webmention`, relative).
        public var pagesNameWebmention = false
        /// Every blog page and post page links to its ActivityPub JSON
        /// (the page server serves it: `ap/NAME`, `ap/NAME/posts/ID`).
        public var pagesNameActivityPub = false

        public init(openPosting: Bool = false, scrypt: ScryptParameters = .standard, loginLease: Double = 3600,
                    pageSize: Int = 50, pageBytes: Int = PageLayout.defaultPageBytes,
                    loginThrottle: LoginPolicy = .init(), storageDeadline: Double = 3,
                    registrationOpen: Bool = true, baseURL: String = "http://localhost/",
                    trashDays: Int = Settings.defaultTrashDays) {
            self.openPosting = openPosting
            self.scrypt = scrypt
            self.loginLease = loginLease
            self.pageSize = pageSize
            self.pageBytes = pageBytes
            self.loginThrottle = loginThrottle
            self.storageDeadline = storageDeadline
            self.registrationOpen = registrationOpen
            self.baseURL = baseURL
            self.trashDays = trashDays
        }

        /// The page layout these settings ask for.
        public var layout: PageLayout { PageLayout(pageSize: max(1, pageSize), pageBytes: max(1, pageBytes)) }
    }

    public let storage: any BlogStorage
    public let pages: PublicFolder
    public let settings: Settings
    let users: UserDirectory
    let userPages: UserPages
    let pageWriter: PageWriter
    let photoFiles: PhotoFiles
    let fragments: FragmentCache
    let hasher: PasswordHasher
    let leases: LoginLeases
    let throttle: LoginThrottle
    /// `index.html` and `index.atom`, at most once a second.
    let index: CoalescedWriter<SiteIndex.Change>
    let siteIndex: SiteIndex
    /// Each blog's feed, at most once a second per blog.
    let feeds: CoalescedWriter<UserRecord>
    /// `sitemap.xml` and `robots.txt`, after each change of the index, at
    /// most once a minute (`SitemapFiles`).
    let sitemap: CoalescedWriter<Bool>
    let takeBack: PostTakeBack
    /// Wakes the Webmention sender after a change of a post.
    let mentionSignal = MentionSignal()
    let logger: Logger
    let now: @Sendable () -> Date
    private let hashCount = Atomic<Int>(0)
    private let registration: Atomic<Bool>
    /// What one hash takes on a hashing thread, in nanoseconds: a moving
    /// average, so the server's estimate of queued hash work follows the
    /// machine's real speed.
    private let hashNanoseconds: Atomic<Int>

    public init(store: any BlogStorage, pages: PublicFolder, settings: Settings = Settings(),
                logger: Logger = Logger(label: "blogd.service"),
                now: @escaping @Sendable () -> Date = Date.init) throws(PasswordHasher.HashError) {
        self.storage = store
        self.pages = pages
        self.settings = settings
        let started = ContinuousClock.now
        self.hasher = try PasswordHasher(parameters: settings.scrypt)
        // Making the hasher hashed its decoy: a first measure of the cost.
        self.hashNanoseconds = Atomic(Self.nanoseconds(ContinuousClock.now - started))
        self.registration = Atomic(settings.registrationOpen)
        self.leases = LoginLeases(duration: settings.loginLease, storage: store, now: now)
        self.throttle = LoginThrottle(policy: settings.loginThrottle, storage: store, now: now)
        self.users = UserDirectory(storage: store)
        self.fragments = FragmentCache()
        let feedMaker = Feeds(baseURL: settings.baseURL, idBase: settings.feedIDBase)
        let head = PageRenderer.micropubLink(settings.pagesNameMicropub ? PageRenderer.micropubPath : nil)
            + PageRenderer.indieAuthLinks(settings.pagesNameMicropub)
            + PageRenderer.webmentionLink(settings.pagesNameWebmention ? PageRenderer.webmentionPath : nil)
        let userPages = UserPages(store: pages, layout: settings.layout, storage: store, cache: fragments, feeds: feedMaker,
                                  head: head, activityPub: settings.pagesNameActivityPub)
        self.userPages = userPages
        self.pageWriter = PageWriter(pages: userPages)
        self.photoFiles = PhotoFiles(pages: pages)
        // Slack: a post is committed within its storage deadline of its time.
        let siteIndex = SiteIndex(pages: pages, storage: store, head: head, slack: settings.storageDeadline + 5)
        self.siteIndex = siteIndex
        let sitemapFiles = SitemapFiles(pages: pages, storage: store, siteURL: settings.baseURL)
        let sitemap = CoalescedWriter<Bool>("sitemap", interval: SitemapFiles.interval, logger: logger) { [store] _, _ in
            try store.withPageLock(userID: 0) { try sitemapFiles.write() }
        }
        self.sitemap = sitemap
        self.index = CoalescedWriter("index", logger: logger, merge: SiteIndex.Change.merged) { [store, pages] _, change in
            sitemap.changed(0, true)
            // Under the lock of user id 0 (no user has it): with several
            // instances, the index written last is read last.
            try store.withPageLock(userID: 0) {
                try siteIndex.write(change)
                try pages.writeIfChanged(feedMaker.site(try store.recentPosts(limit: Feeds.entryLimit)),
                                         file: PageRenderer.siteFeedFile)
            }
        }
        self.feeds = CoalescedWriter("feed", logger: logger) { [store] userID, owner in
            try store.withPageLock(userID: userID) {
                // The admin may have deleted the user since the change.
                guard try store.user(id: userID) != nil else { return }
                try userPages.writeFeed(owner)
            }
        }
        self.takeBack = PostTakeBack(storage: store, logger: logger) { [store, userPages] owner in
            _ = try store.withPageLock(userID: owner.id) { try userPages.repair(owner, force: true) }
        }
        self.logger = logger
        self.now = now
        // Made with the service, so that /metrics shows them from the start.
        _ = (HashWaitMetrics.shared, PageMetrics.shared)
    }

    /// Posts answered `post:ERR` that the database may still hold, waiting
    /// to be taken back once it answers (see `PostTakeBack`).
    public var postsToTakeBack: Int { takeBack.pending }

    /// Names whose page file or folder the server itself uses.
    public static let reservedNames: Set<String> = ["index", PostPhoto.folder, "tags", "search",
                                                    PageRenderer.activityFolder, PageRenderer.sharedInboxName]

    /// Parses one message body and carries it out.
    public func handle(message body: [UInt8], session: inout Session) -> Outcome {
        let request: Request
        do {
            request = try Request(message: body)
        } catch {
            return Outcome(reply: error.reply)
        }
        return outcome(of: request, session: &session)
    }

    /// Carries out a parsed request; the reply (a list of posts, whose
    /// bytes are its own, is `.postsListed`).
    public func execute(_ request: Request, session: inout Session) -> Reply {
        outcome(of: request, session: &session).reply
    }

    /// Carries out a parsed request: the reply, and the new post's id
    /// when it stored one.
    public func outcome(of request: Request, session: inout Session) -> Outcome {
        outcome(of: request, photos: [], session: &session)
    }

    /// `outcome(of:session:)` with photos (names of the author's uploads,
    /// `storePhoto`, in the order the post shows them) attached to a
    /// `newpost` or `geopost`; ignored for other requests. A photo that is
    /// not the author's, unknown, on a post already, or one past
    /// `PostPhoto.maxPerPost` refuses the post (`post:NA`), storing nothing.
    public func outcome(of request: Request, photos: [String], session: inout Session) -> Outcome {
        outcome(of: request, extras: PostExtras(photoNames: photos), session: &session)
    }

    /// `outcome(of:session:)` with what the web client and Micropub add
    /// (`PostExtras`): photos with alt text and the HTML source on a
    /// `newpost` or `geopost` (refused as `outcome(of:photos:session:)`
    /// says), and on an `editpost` the HTML source and the photos and place
    /// it sets (a photo that may not go on the post answers `edit:NA`).
    public func outcome(of request: Request, extras: PostExtras, session: inout Session) -> Outcome {
        var posted: Int64?
        let (reply, bytes) = perform(request, extras: extras, &session, posted: &posted)
        return Outcome(reply: reply, command: request.command, user: request.user.value, body: bytes, postID: posted)
    }

    private func perform(_ request: Request, extras: PostExtras, _ session: inout Session,
                         posted: inout Int64?) -> (reply: Reply, body: [UInt8]?) {
        switch request {
        case .register, .login:
            return (finishHere(passwordStep(of: request, session: session), &session), nil)
        case .newPost(let user, let title, let content):
            return (RequestDeadline.$end.withValue(storageDeadline()) {
                newPost(user, title, content, session, extras: extras, posted: &posted)
            }, nil)
        case .geoPost(let user, let place, let title, let content):
            return (RequestDeadline.$end.withValue(storageDeadline()) {
                newPost(user, title, content, session, at: place, extras: extras, posted: &posted)
            }, nil)
        case .listPosts(let user):
            return RequestDeadline.$end.withValue(storageDeadline()) { listPosts(user, session) }
        case .editPost(let user, let id, let title, let content):
            return (RequestDeadline.$end.withValue(storageDeadline()) { editPost(user, id, title, content, extras, session) }, nil)
        case .deletePost(let user, let id):
            return (RequestDeadline.$end.withValue(storageDeadline()) { deletePost(user, id, session) }, nil)
        }
    }

    /// Parses one message body of a register or login and runs what comes
    /// before its hash (`PasswordStep`). Any other message is carried out
    /// here, whole.
    public func passwordStep(message body: [UInt8], session: Session) -> PasswordStep {
        do {
            return passwordStep(of: try Request(message: body), session: session)
        } catch {
            return .answered(Outcome(reply: error.reply))
        }
    }

    /// `passwordStep(message:session:)` for a parsed request.
    public func passwordStep(of request: Request, session: Session) -> PasswordStep {
        switch request {
        case .register(let user, let password):
            return registerStep(user, password, session)
        case .login(let user, let password):
            return loginStep(user, password, session)
        default:
            var session = session
            return .answered(outcome(of: request, session: &session))
        }
    }

    /// A step carried out on this thread, the hash on a hashing thread
    /// while this one waits (for callers with nothing else to do: tests,
    /// commands, the synchronous `outcome(of:session:)`).
    private func finishHere(_ step: PasswordStep, _ session: inout Session) -> Reply {
        switch step {
        case .answered(let outcome):
            return outcome.reply
        case .hash(let work):
            HashingThreads.shared.run(for: work.owner, standing: work.standing) { work.hash() }
            return work.finish(&session).reply
        }
    }

    private func registerStep(_ user: Username, _ password: String, _ session: Session) -> PasswordStep {
        let answered = { (reply: Reply) in PasswordStep.answered(Outcome(reply: reply, command: "register", user: user.value)) }
        do {
            // Closed: only the admin adds users. Told as a taken name, as
            // the original client knows no other refusal.
            guard registrationOpen else { return answered(.nameTaken) }
            // `index.html` is the list of blogs: no user may have that page.
            if Self.reservedNames.contains(user.key) { return answered(.nameTaken) }
            // Cheap check first, so taken names cost no scrypt.
            if try users.user(named: user) != nil { return answered(.nameTaken) }
        } catch {
            logger.error("register failed", metadata: ["user": "\(user)", "error": "\(error)"])
            return answered(.databaseError)
        }
        return .hash(work(for: session, command: "register", user: user, hash: { [hasher] in
            Result { () throws(PasswordHasher.HashError) in try hasher.hash(password) }
        }, then: { [self] hashed, session in
            do {
                let hash = try hashed.get()
                // From here on, one deadline for the insert, the page and an undo.
                return try RequestDeadline.$end.withValue(storageDeadline()) { () throws in
                    try store(user, hash: hash, &session)
                }
            } catch StorageError.nameTaken {
                return .nameTaken
            } catch {
                logger.error("register failed", metadata: ["user": "\(user)", "error": "\(error)"])
                return .databaseError
            }
        }))
    }

    /// When the storage calls of a request starting now must be done.
    func storageDeadline() -> ContinuousClock.Instant {
        .now + .milliseconds(Int64(settings.storageDeadline * 1000))
    }

    /// The user's row and page, or neither.
    private func store(_ user: Username, hash: String, _ session: inout Session) throws -> Reply {
        let record = try storage.createUser(name: user.value, passwordHash: hash, at: now().wholeMilliseconds)
        do {
            try pageWriter.write(record)
        } catch {
            // A failure reply must leave nothing behind, or a retry
            // would find its own name taken.
            logger.error("page not written", metadata: ["user": "\(record.name)", "error": "\(error)"])
            // A deadline of its own: the page write may have spent the
            // request's, and a user left behind would keep the name taken.
            RequestDeadline.$end.withValue(nil) {
                undo("user", record.name) { () throws(StorageError) in try storage.deleteUser(id: record.id) }
            }
            users.forget(record.name)
            return .databaseError
        }
        authenticate(user, &session)
        feedChanged(record)
        index.changed(0, .all)
        return .registered
    }

    /// Marks `user`'s feed for a background write.
    func feedChanged(_ user: UserRecord) {
        feeds.changed(user.id, user)
    }

    private func loginStep(_ user: Username, _ password: String, _ session: Session) -> PasswordStep {
        let answered = { (reply: Reply) in PasswordStep.answered(Outcome(reply: reply, command: "login", user: user.value)) }
        let record: UserRecord?
        do {
            // Read afresh, not from the directory: the admin may have
            // suspended or deleted the user since.
            record = try storage.user(named: user.value).flatMap { $0.suspended ? nil : $0 }
        } catch {
            logger.error("login failed", metadata: ["user": "\(user)", "error": "\(error)"])
            return answered(.databaseError)
        }
        // A locked-out guesser learns nothing more, and costs no scrypt.
        guard throttle.begin(user, from: session.peerAddress) else { return answered(.loginRefused) }
        return .hash(work(for: session, command: "login", user: user, hash: { [hasher] in
            guard let record else {
                // Same cost as a real check, so timing does not reveal names.
                hasher.verifyDecoy(password)
                return false
            }
            return hasher.verify(password, against: record.passwordHash)
        }, then: { [self] valid, session in
            throttle.finish(user, from: session.peerAddress, succeeded: valid)
            guard valid else { return .loginRefused }
            authenticate(user, &session)
            return .loggedIn
        }))
    }

    /// Whether the session may act as `user`: logged in on this
    /// connection or, within the lease, from this address (or anyone,
    /// with open posting).
    func mayActAs(_ user: Username, _ session: Session) throws -> Bool {
        try settings.openPosting
            || session.authenticatedUsers.contains(user.key)
            || leases.isHeld(by: user, from: session.peerAddress)
    }

    private func newPost(_ user: Username, _ title: Title, _ content: PostText, _ session: Session,
                         at place: Place? = nil, extras: PostExtras, posted: inout Int64?) -> Reply {
        let (title, content) = (title.value, content.value)
        let photos = extras.photos ?? [], html = extras.contentHTML, categories = extras.categories ?? []
        do {
            guard var owner = try users.user(named: user) else { return .postRefused }
            guard try mayActAs(user, session) else { return .postRefused }
            let weight = PageRenderer.weight(title: title, content: content)
            let token = UUID.random()
            // Its Webmentions wait for its page (`WebmentionHolds`).
            let hold = MentionHold(storage)
            defer { hold.release() }
            hold.hold(owner.id)
            var inserted = Result { () throws(StorageError) in
                try storage.insertPost(userID: owner.id, title: title, content: content, contentHTML: html, categories: categories,
                                       weight: weight,
                                       place: place, photos: photos, at: now().wholeMilliseconds, layout: settings.layout,
                                       token: token)
            }
            if case .failure(.unknownUser) = inserted {
                // Deleted or suspended by the admin since the directory
                // found the name; it may have been registered again.
                users.forget(user.value)
                guard let current = try users.user(named: user), current.id != owner.id else { return .postRefused }
                owner = current
                hold.hold(owner.id)
                inserted = Result { () throws(StorageError) in
                    try storage.insertPost(userID: owner.id, title: title, content: content, contentHTML: html, categories: categories,
                                       weight: weight,
                                           place: place, photos: photos, at: now().wholeMilliseconds,
                                           layout: settings.layout, token: token)
                }
            }
            if case .failure(.outcomeUnknown) = inserted {
                // The reply says failed; taking the post back makes it so.
                logger.error("newpost failed", metadata: ["user": "\(user)", "error": "\(StorageError.outcomeUnknown)"])
                takeBack.add(owner, token: token)
                return .postFailed
            }
            let stored = try inserted.get()
            let postID = stored.record.id
            // Rendered once, here, while its text is at hand.
            fragments.store(RenderedPost(stored.record, user: owner.name), for: postID)
            do {
                // Pages are rendered from the database, read under the page
                // lock (not the newest posts the insert saw: an admin
                // command may have changed them since): whoever writes the
                // user's page after this commit shows this post, in order.
                try pageWriter.ensure(owner, showing: postID)
            } catch {
                // Not on the page means not acknowledged: take the post
                // back, so that a retry does not store it twice.
                logger.error("page not updated", metadata: ["user": "\(owner.name)", "post": "\(postID)", "error": "\(error)"])
                if !undo("post", owner.name, { () throws(StorageError) in try storage.deletePost(id: postID) }) {
                    takeBack.add(owner, token: token, postID: postID)
                }
                fragments.remove(postID)
                return .postFailed
            }
            feedChanged(owner)
            index.changed(0, .posts)
            posted = postID
            hold.release()
            mentionSignal.changed(content)
            return .posted
        } catch StorageError.unknownUser {
            return .postRefused
        } catch StorageError.unknownPhoto {
            return .postRefused
        } catch {
            logger.error("newpost failed", metadata: ["user": "\(user)", "error": "\(error)"])
            return .postFailed
        }
    }

    /// Deletes the login state that counts for nothing any more: expired
    /// leases and access tokens, and stale failed-login records (blogd
    /// does it every minute); and photos uploaded more than a day ago that
    /// no post took, with their files; and purges the posts that have been
    /// in the trash for `trashDays` (`purgeTrash`).
    /// Returns how many failed-login records went.
    @discardableResult
    public func pruneLoginState() throws(StorageError) -> Int {
        let current = now()
        try storage.deleteLeases(expiredBefore: current)
        try storage.deleteTokens(expiredBefore: current)
        try storage.deleteAuthorizationCodes(expiredBefore: current)
        let stale = try storage.deleteStaleLoginFailures(at: current, policy: settings.loginThrottle)
        // A day is far longer than any commit a token could still settle.
        try storage.deletePostTokens(before: current - 86_400)
        // A day is far longer than an upload waits for the post that shows it.
        photoFiles.remove(try storage.deletePhotos(unattachedBefore: current - 86_400))
        try purgeTrash()
        return stale
    }

    /// Rewrites a user's pages (main and archives) from the database.
    public func rebuildPage(of owner: UserRecord) throws {
        _ = try storage.withPageLock(userID: owner.id) { try userPages.repair(owner, force: true) }
    }

    /// Password hashes and checks done so far (registers, logins, and the
    /// decoy checks of unknown names): what the login throttle saves.
    public var passwordHashes: Int { hashCount.load(ordering: .relaxed) }

    /// Whether `register` creates users: `settings.registrationOpen` at
    /// first, then what a reload of the configuration (SIGHUP) says.
    public var registrationOpen: Bool {
        get { registration.load(ordering: .relaxed) }
        set { registration.store(newValue, ordering: .relaxed) }
    }

    /// Seconds one password hash takes on a hashing thread, lately.
    public var secondsPerHash: Double { Double(hashNanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// Hashes that run at once (one per core).
    public var hashingThreads: Int { HashingThreads.shared.count }

    /// Writes `index.html` and the site feed now (they are otherwise
    /// rewritten in the background shortly after each change), the
    /// feeds waiting to be written, and the sitemap.
    public func writeIndex() {
        feeds.flushAll()
        index.flush(0, .all)
        sitemap.flush(0, true)
    }

    /// Writes what the background writers still hold (feeds, the index,
    /// the sitemap: only what changed) and drops this process's spares,
    /// for a process that ends now: an admin command would otherwise exit
    /// with its changes unwritten, or write them after its database
    /// closed, and leave its spares (old pages) in the staging folder.
    public func finishPageWrites() {
        feeds.flushAll()
        // The index's write marks the sitemap changed: after it.
        index.flushAll()
        sitemap.flushAll()
        pages.removeSpares()
    }

    /// Takes back a commit whose reply will be a failure. If even that
    /// fails, the start-up page check shows the row on its page later.
    @discardableResult
    private func undo(_ what: String, _ user: String, _ body: () throws(StorageError) -> Void) -> Bool {
        do {
            try body()
            return true
        } catch {
            logger.error("could not take back a \(what)", metadata: ["user": "\(user)", "error": "\(error)"])
            return false
        }
    }

    private func authenticate(_ user: Username, _ session: inout Session) {
        session.authenticatedUsers.insert(user.key)
        // A web or Micropub login proves itself by its cookie or token;
        // a lease would let anyone at the same address post as the user
        // over the protocol, and outlive the logout.
        guard session.grantsLease else { return }
        do {
            try leases.grant(user, from: session.peerAddress)
        } catch {
            // This process honours the lease anyway; only another instance,
            // or this one after a restart, would not know of it.
            logger.error("lease not stored", metadata: ["user": "\(user)", "error": "\(error)"])
        }
    }

    /// The hash `hash` and what follows it, `then`, as one `PasswordWork`.
    /// scrypt is memory-hard: it runs on the process's hashing threads (one
    /// per core), which keeps its memory bounded however many clients log
    /// in at once; its wait and its time are measured there (the time's
    /// moving average is the cost the hash lane admits by).
    private func work<T: Sendable>(for session: Session, command: String, user: Username,
                                   hash: @escaping @Sendable () -> T,
                                   then: @escaping @Sendable (T, inout Session) -> Reply) -> PasswordWork {
        hashCount.add(1, ordering: .relaxed)
        let asked = ContinuousClock.now
        let result = HashResult<T>()
        return PasswordWork(owner: session.peerAddress, standing: session.standing, hash: { [self] in
            let started = ContinuousClock.now
            HashWaitMetrics.shared.wait.record(duration: started - asked)
            let value = hash()
            // Racing updates may lose a sample; an average does not mind.
            let sample = Self.nanoseconds(ContinuousClock.now - started)
            let average = hashNanoseconds.load(ordering: .relaxed)
            hashNanoseconds.store(average - average / 8 + sample / 8, ordering: .relaxed)
            result.value.withLock { $0 = value }
        }, finish: { session in
            // Never before the hash, but a caller's mistake must not crash.
            guard let value = result.value.withLock({ $0 }) else {
                return Outcome(reply: .databaseError, command: command, user: user.value)
            }
            return Outcome(reply: then(value, &session), command: command, user: user.value)
        })
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}

/// A hash's result, from the hashing thread to what follows it.
private final class HashResult<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}
