import Foundation
import NIOCore
import Synchronization

/// The pages in memory, each checked against the file before it is served:
/// a `stat` per request instead of reading the file, and a page gzipped
/// once per version instead of once per request. At most `capacity` bytes
/// (plain and gzipped) are kept; past it, the page used longest ago goes.
///
///     let cache = FileCache(capacity: 64 << 20)
///     let page = cache.read(atPath: "public/alice.html")   // from disk
///     let again = cache.read(atPath: "public/alice.html")  // from memory, if unchanged
final class FileCache: Sendable {
    private struct Entry {
        var content: PublicFolderHandler.FileContent
        var gzipped: ByteBuffer?
        var lastUse: Int
        var bytes: Int { content.bytes.readableBytes + (gzipped?.readableBytes ?? 0) }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock = 0
        var diskReads = 0
        var compressions = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Files read from disk and bodies gzipped so far (for tests).
    var counts: (diskReads: Int, compressions: Int) { state.withLock { ($0.diskReads, $0.compressions) } }

    /// The copy kept of the file at `path`, if it is still the file's
    /// version: one `stat` and no read, cheap enough for the event loop.
    func current(atPath path: String) -> PublicFolderHandler.FileContent? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            forget(path)
            return nil
        }
        let current = FileVersion(info)
        return state.withLock { state -> PublicFolderHandler.FileContent? in
            guard var entry = state.entries[path], entry.content.version == current else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[path] = entry
            return entry.content
        }
    }

    /// The gzipped copy kept of `content`, if there is one.
    func gzipped(_ content: PublicFolderHandler.FileContent, atPath path: String) -> ByteBuffer? {
        state.withLock { state in
            state.entries[path].flatMap { $0.content.version == content.version ? $0.gzipped : nil }
        }
    }

    /// The file at `path`: from memory when its inode, time and size are
    /// still those of the copy kept, else from disk (and kept).
    func read(atPath path: String) -> PublicFolderHandler.FileContent? {
        current(atPath: path) ?? load(atPath: path)
    }

    /// The file at `path` from disk, kept: for a caller that found no
    /// current copy (`current`) a moment ago.
    func load(atPath path: String) -> PublicFolderHandler.FileContent? {
        guard let content = PublicFolderHandler.readFile(atPath: path) else { return nil }
        store(path) { state in
            state.diskReads += 1
            return Entry(content: content, gzipped: nil, lastUse: 0)
        }
        return content
    }

    /// `content` gzipped: computed once for each version of its file.
    func gzip(_ content: PublicFolderHandler.FileContent, atPath path: String) -> ByteBuffer? {
        if let kept = gzipped(content, atPath: path) { return kept }
        guard let packed = ContentCoding.gzip(content.bytes) else { return nil }
        store(path) { state in
            state.compressions += 1
            var entry = state.entries[path] ?? Entry(content: content, gzipped: nil, lastUse: 0)
            guard entry.content.version == content.version else { return entry }
            entry.gzipped = packed
            return entry
        }
        return packed
    }

    private func forget(_ path: String) {
        state.withLock { state in
            if let gone = state.entries.removeValue(forKey: path) { state.bytes -= gone.bytes }
        }
    }

    /// Puts what `make` returns under `path`, then evicts the least recently
    /// used entries until the bytes fit.
    private func store(_ path: String, _ make: (inout State) -> Entry) {
        state.withLock { state in
            var entry = make(&state)
            state.clock += 1
            entry.lastUse = state.clock
            if let old = state.entries[path] { state.bytes -= old.bytes }
            guard entry.bytes <= capacity else {
                state.entries[path] = nil
                return
            }
            state.entries[path] = entry
            state.bytes += entry.bytes
            while state.bytes > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.bytes
            }
        }
    }
}
