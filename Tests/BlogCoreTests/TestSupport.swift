import Foundation
import Synchronization
@testable import BlogCore
import BlogWire
import BlogSQLite
import BlogTestSupport
import Testing
import BlogModel
@testable import BlogPages

/// Shared helpers of the BlogCore tests.

/// The UTF-8 bytes of `text`.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Names of the files in `folder`, sorted, but the folders of post pages
/// and the feeds (`allFileNames` has them).
func fileNames(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().filter { name in
        var isFolder: ObjCBool = false
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
        // Spares (old pages kept to be written over) are hidden `.tmp` files.
        return !isFolder.boolValue && !name.hasSuffix(".atom") && !(name.hasPrefix(".") && name.contains(".atom."))
            && !(name.hasPrefix(".") && name.hasSuffix(".tmp"))
            // The sitemap and robots.txt, site-wide like the index, are
            // rewritten in the background after each change.
            && !(name.hasPrefix("sitemap") && name.hasSuffix(".xml")) && name != SitemapFile.robotsFile
    }
}

/// Every file under `folder` (`alice/17.html` for one in a folder), sorted.
func allFileNames(in folder: URL) throws -> [String] {
    var names: [String] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
        var isFolder: ObjCBool = false
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
        if isFolder.boolValue {
            names += try allFileNames(in: folder.appendingPathComponent(name)).map { name + "/" + $0 }
        } else if !(name.hasPrefix(".") && name.hasSuffix(".tmp")) {
            // (Hidden `.tmp` files are writes under way and spares.)
            names.append(name)
        }
    }
    return names.sorted()
}

/// Names of the files in `folder` but the index and its temporary files,
/// which the service rewrites in the background after each change.
func pageFileNames(in folder: URL) throws -> [String] {
    try fileNames(in: folder).filter { $0 != IndexPage.fileName && !$0.hasPrefix("." + IndexPage.fileName) }
}

/// A username known to be valid.
func user(_ name: String) -> Username {
    // Force-try: tests only pass names that follow the rules.
    try! Username(name)
}

/// UTF-8 bytes as text, for checking rendered pages.
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

extension SQLiteStore {
    /// Every post id of a user, oldest first.
    func postIDs(ofUserID userID: Int64) throws(StorageError) -> [Int64] {
        try postIDs(ofUserID: userID, pages: 1...Int(Int32.max)).reversed()
    }
}

extension PageRenderer {
    /// A user's main page as text, `posts` newest first.
    static func page(user: String, posts: [PostRecord], archives: Int = 0) -> String {
        text(mainPage(user: user, fragments: posts.map { fragment($0, user: user) }, olderArchive: archives > 0 ? archives : nil))
    }
}

extension PublicFolder {
    /// Writes a user's main page file as given (a test damaging it).
    func write(_ text: String, user: String) throws(PageError) {
        try write(text, file: PageRenderer.mainFile(user: user))
    }
}

extension UserPages {
    /// Whether every page of `user` on disk is what the database renders.
    func areCurrent(_ user: UserRecord) throws -> Bool {
        try render(user).allSatisfy { store.contents(of: $0.file) == $0.bytes }
    }
}

/// Runs `Tests/FeedCheck/check_feed.py` over `paths` with the Python that
/// has feedparser. Without jing or feedparser the calling test is skipped
/// with one line saying what to install, unless `BLOGD_REQUIRE_FEED_TOOLS=1`
/// (CI), where that fails it.
func checkFeeds(_ paths: [String]) throws -> (status: Int32, output: String) {
    switch FeedTools.find() {
    case .found(let tools):
        return try tools.check(paths)
    case .missing(let line):
        if FeedTools.required {
            Issue.record("BLOGD_REQUIRE_FEED_TOOLS=1: \(line)")
            return (1, line)
        }
        print(line)
        try Test.cancel(Comment(rawValue: line))
    }
}
