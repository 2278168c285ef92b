import HTTPTypes
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

extension PublicFolderHandler {
    /// A file's bytes and the version they are, with the version's header
    /// values made once: a page in memory is served many times.
    struct FileContent: Sendable {
        let bytes: ByteBuffer
        let version: FileVersion
        /// `version.etag`.
        let etag: String
        /// `version.lastModified`.
        let lastModified: String

        init(bytes: ByteBuffer, version: FileVersion) {
            self.bytes = bytes
            self.version = version
            self.etag = version.etag
            self.lastModified = version.lastModified
        }

        /// Whether a client sending these fields has this version already.
        func isCurrent(_ fields: HTTPFields) -> Bool {
            guard fields[.ifNoneMatch] != nil || fields[.ifModifiedSince] != nil else { return false }
            return version.isCurrent(ifNoneMatch: fields[.ifNoneMatch], ifModifiedSince: fields[.ifModifiedSince], etag: etag)
        }
    }

    /// What a request's file is on disk.
    enum Lookup: Sendable {
        case file(FileContent)
        /// Missing, with a tombstone (`NAME.gone`) beside it: a deleted
        /// post, `410 Gone` rather than `404`.
        case gone
        /// Missing, a folder, a link, unreadable: `404`.
        case missing

        /// The file read from disk: `name` (relative, `/`-separated) below
        /// `folder`, never through a link (`FolderFile`).
        static func onDisk(_ name: String, in folder: String) -> Lookup {
            guard let fd = FolderFile.open(name, in: folder) else {
                // Only a missing page can have been deleted; a link or a
                // folder in its place is not a tombstone's business.
                return errno == ENOENT && FolderFile.isRegularFile(name + Self.tombstoneSuffix, in: folder) ? .gone : .missing
            }
            defer { close(fd) }
            return FileContent.read(fd).map(Lookup.file) ?? .missing
        }

        /// The file, when there is one.
        var file: FileContent? {
            if case .file(let content) = self { return content }
            return nil
        }

        /// What marks a deleted page: its name plus this, beside it.
        static let tombstoneSuffix = ".gone"
    }
}

extension PublicFolderHandler.FileContent {
    /// The whole regular file open at `fd` and its version, both from the
    /// one open file (a page replaced meanwhile is read whole, old or new);
    /// `nil` for a folder or anything unreadable. The bytes go straight
    /// into the buffer that is served.
    static func read(_ fd: Int32) -> Self? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        // One byte over the size: the read that finds the end needs room,
        // and a buffer that had to grow would copy the page.
        var bytes = ByteBufferAllocator().buffer(capacity: Int(info.st_size) + 1)
        while true {
            var result = 0
            bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: 1) { space in
                result = Glibc.read(fd, space.baseAddress, space.count)
                return max(result, 0)
            }
            if result == 0 { break }
            if result < 0 && errno != EINTR { return nil }
        }
        var version = FileVersion(info)
        version.size = bytes.readableBytes
        return Self(bytes: bytes, version: version)
    }
}
