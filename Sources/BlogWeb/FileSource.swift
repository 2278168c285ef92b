import NIOCore
import NIOPosix

/// Where `PublicFolderHandler` gets files and their gzipped bodies: each
/// at once when that needs no waiting (the event loop answers then and
/// there), else through the `async` call (which may go to another thread).
protocol FileSource: Sendable {
    /// The file `name`, if it can be had without blocking; nil to ask
    /// `lookup`.
    func immediate(_ name: String) -> PublicFolderHandler.Lookup?
    func lookup(_ name: String) async -> PublicFolderHandler.Lookup
    /// `file` gzipped, if that is at hand; nil to ask `gzip`.
    func immediateGzip(_ file: PublicFolderHandler.FileContent, name: String) -> ByteBuffer?
    /// `file` gzipped; nil when compressing fails.
    func gzip(_ file: PublicFolderHandler.FileContent, name: String) async -> ByteBuffer?
}

/// Files read from disk on the calling thread, every time: for tests and
/// tools.
struct DiskFiles: FileSource {
    let folder: String

    func immediate(_ name: String) -> PublicFolderHandler.Lookup? { .onDisk(name, in: folder) }
    func lookup(_ name: String) async -> PublicFolderHandler.Lookup { .onDisk(name, in: folder) }
    func immediateGzip(_ file: PublicFolderHandler.FileContent, name: String) -> ByteBuffer? { ContentCoding.gzip(file.bytes) }
    func gzip(_ file: PublicFolderHandler.FileContent, name: String) async -> ByteBuffer? { ContentCoding.gzip(file.bytes) }
}

/// The web server's files: what `FileCache` holds and still matches the
/// disk at once, the rest read and compressed on `thread`, never on an
/// event loop.
struct CachedFiles: FileSource {
    let cache: FileCache
    let thread: NIOThreadPool

    func immediate(_ name: String) -> PublicFolderHandler.Lookup? {
        cache.current(name).map(PublicFolderHandler.Lookup.file)
    }

    func lookup(_ name: String) async -> PublicFolderHandler.Lookup {
        (try? await thread.runIfActive { cache.load(name) }) ?? .missing
    }

    func immediateGzip(_ file: PublicFolderHandler.FileContent, name: String) -> ByteBuffer? {
        cache.gzipped(file, name: name)
    }

    func gzip(_ file: PublicFolderHandler.FileContent, name: String) async -> ByteBuffer? {
        (try? await thread.runIfActive { cache.gzip(file, name: name) }) ?? nil
    }
}
