@testable import BlogCore
import BlogTestSupport
import BlogWire
import Dispatch
import Foundation
import Logging
import Synchronization
import Testing
import BlogModel
@testable import BlogPages

/// The trash through the service over each backend: posts with photos
/// trashed, restored and purged (on the service's clock) from several
/// clients at once leave every page equal to a rebuild, the photo files
/// of exactly the posts shown, and nothing restorable after the purge.
@Suite("BlogService conformance: the trash")
struct TrashServiceConformanceTests {
    @Test(arguments: Backend.available) func trashRestoreAndPurgeEqualARebuild(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let folder = try makeTemporaryFolder()
            defer { removeTemporaryFolder(folder) }
            let quiet = Logger(label: "test.service", factory: { _ in SwiftLogNoOpLogHandler() })
            let clock = Mutex(t0)
            let service = try BlogService(store: store, pages: PublicFolder(folder: folder),
                                          settings: .init(scrypt: .testing, pageSize: 2, trashDays: 2), logger: quiet,
                                          now: { clock.withLock { $0 } })
            @Sendable func send(_ text: String, _ session: inout Session) -> Reply {
                service.handle(message: Array(text.utf8), session: &session).reply
            }
            let names = ["ann", "bob"]
            var sessions: [Session] = []
            for name in names {
                var session = Session(peerAddress: "192.0.2.1")
                #expect(send("register:\(name):pw", &session) == .registered)
                sessions.append(session)
            }
            let all = sessions
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                let name = names[worker % 2]
                var session = all[worker % 2]
                let owner = try! store.user(named: name)!
                for step in 0..<16 {
                    let ids = (try? store.postIDs(ofUserID: owner.id, pages: 1...1_000)) ?? []
                    let trashed = (try? store.trashedPosts(ofUserID: owner.id, limit: 100).map(\.id)) ?? []
                    switch (step % 5, ids.isEmpty) {
                    case (0, _):
                        let photo = testPhoto(thumbnailWidth: 100 + step, thumbnailHeight: 90)
                        _ = service.storePhoto(photo, image: fakeJPEG(seed: UInt64(worker * 100 + step)), thumbnail: fakeJPEG(200),
                                               for: try! Username(name), session: session)
                        let request = try! Request(message: Array("newpost:\(name):p\(worker) s\(step):pictured".utf8))
                        _ = service.outcome(of: request, photos: [photo.name], session: &session)
                    case (1, _), (_, true): _ = send("newpost:\(name):w\(worker) s\(step):text", &session)
                    case (2, false): _ = send("delpost:\(name):\(ids[(step + worker) % ids.count])", &session)
                    case (3, false) where !trashed.isEmpty:
                        _ = service.restorePost(try! Username(name), id: trashed[(step + worker) % trashed.count], session: session)
                    default:
                        clock.withLock { $0 += 86_400 }
                        _ = try? service.purgeTrash()
                    }
                }
            }
            service.writeIndex()
            for user in try store.allUsers() {
                for page in try service.userPages.render(user) {
                    #expect(service.pages.contents(of: page.file) == page.bytes, "\(backend): \(page.file)")
                }
            }
            #expect(try service.repairPages().rebuilt.isEmpty, "\(backend)")
            var shown = Set<String>()
            for user in try store.allUsers() {
                for post in try store.posts(ofUserID: user.id) { shown.formUnion(post.photos.map(\.name)) }
            }
            let files = Set(service.pages.files(in: PostPhoto.folder).compactMap { PhotoFiles.photoName(ofFile: $0) })
            #expect(files == shown, "\(backend): the files of the photos shown, and no others")
            clock.withLock { $0 += 3 * 86_400 }
            try service.pruneLoginState()
            for user in try store.allUsers() {
                #expect(try store.trashedPosts(ofUserID: user.id, limit: 100).isEmpty, "\(backend): purged")
            }
        }
    }
}
