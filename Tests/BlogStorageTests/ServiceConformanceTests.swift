@testable import BlogCore
import BlogTestSupport
import BlogWire
import Dispatch
import Foundation
import Logging
import Testing
import BlogModel
@testable import BlogPages

/// The service over each backend: posts (some with photos), edits,
/// deletions and moderation from several clients at once leave every page,
/// post page, tombstone and feed equal to a rebuild from the database, and
/// every photo's files in place.
@Suite("BlogService conformance")
struct ServiceConformanceTests {
    @Test(arguments: Backend.available) func aMixOfEditsAndDeletionsEqualsARebuild(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let folder = try makeTemporaryFolder()
            defer { removeTemporaryFolder(folder) }
            let quiet = Logger(label: "test.service", factory: { _ in SwiftLogNoOpLogHandler() })
            let service = try BlogService(store: store, pages: PublicFolder(folder: folder),
                                          settings: .init(scrypt: .testing, pageSize: 3), logger: quiet)
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
                for step in 0..<12 {
                    let ids = (try? store.postIDs(ofUserID: store.user(named: name)!.id, pages: 1...1_000)) ?? []
                    switch (step % 4, ids.isEmpty) {
                    case (0, _):
                        // Uploaded first, then shown by the post that names it.
                        let photo = testPhoto(thumbnailWidth: 100 + step, thumbnailHeight: 90)
                        _ = service.storePhoto(photo, image: fakeJPEG(seed: UInt64(worker * 100 + step)), thumbnail: fakeJPEG(200),
                                               for: try! Username(name), session: session)
                        let request = try! Request(message: Array("newpost:\(name):p\(worker) s\(step):pictured".utf8))
                        _ = service.outcome(of: request, photos: [photo.name], session: &session)
                    case (1, _), (_, true): _ = send("newpost:\(name):w\(worker) s\(step):text", &session)
                    case (2, false): _ = send("editpost:\(name):\(ids[step % ids.count]):e\(worker) \(step):changed", &session)
                    default: _ = send("delpost:\(name):\(ids[(step + worker) % ids.count])", &session)
                    }
                }
            }
            _ = try service.moderateDeletePost(id: try #require(try store.postIDs(ofUserID: store.user(named: "bob")!.id, pages: 1...1_000).first))
            service.writeIndex()
            for user in try store.allUsers() {
                for page in try service.userPages.render(user) {
                    #expect(service.pages.contents(of: page.file) == page.bytes, "\(backend): \(page.file)")
                }
            }
            #expect(try service.repairPages().rebuilt.isEmpty, "\(backend)")
            var photos = 0
            for user in try store.allUsers() {
                for photo in try store.photos(ofUserID: user.id) {
                    photos += 1
                    #expect(service.pages.exists(file: photo.file) && service.pages.exists(file: photo.thumbnailFile))
                }
            }
            #expect(photos > 0, "\(backend)")
            #expect(service.pages.files(in: PostPhoto.folder).filter { !$0.hasPrefix(".") }.count == 2 * photos,
                    "the deleted posts' photos' files are gone")
        }
    }
}
