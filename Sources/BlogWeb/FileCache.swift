import Foundation
import NIOCore
import Synchronization

/// The pages of one folder in memory, each checked against its file before
/// it is served: a `stat` instead of reading the file, and a page gzipped
/// once per version instead of once per request. At most `capacity` bytes
/// (plain and gzipped) are kept; past it, the page used longest ago goes.
///
/// A copy checked less than `trustedFor` ago is served without a `stat`:
/// under load that saves a system call a request, and a page replaced on
/// disk is still seen within `trustedFor`. (Zero checks every time.)
///
///     let cache = FileCache(folder: "public", capacity: 64 << 20)
///     let page = cache.read("alice.html")   // from disk
///     let again = cache.read("alice.html")  // from memory, if unchanged
final class FileCache: Sendable {
    private struct Entry {
        var content: PublicFolderHandler.FileContent
        var gzipped: ByteBuffer?
        var lastUse: Int
        /// When `content` was last found to be the file's version.
        var checkedAt: UInt64
        var bytes: Int { content.bytes.readableBytes + (gzipped?.readableBytes ?? 0) }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock = 0
        var diskReads = 0
        var compressions = 0
        var stats = 0
    }

    let folder: String
    let capacity: Int
    /// How long a checked copy is served without checking again, in
    /// nanoseconds.
    private let trustedFor: UInt64
    /// Monotonic nanoseconds (injected by tests).
    private let now: @Sendable () -> UInt64
    private let state = Mutex(State())

    init(folder: String, capacity: Int, trustedFor: Duration = .zero,
         now: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds }) {
        self.folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        self.capacity = capacity
        let (seconds, attoseconds) = trustedFor.components
        self.trustedFor = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        self.now = now
    }

    /// Files read from disk, bodies gzipped and `stat`s made so far (for tests).
    var counts: (diskReads: Int, compressions: Int, stats: Int) {
        state.withLock { ($0.diskReads, $0.compressions, $0.stats) }
    }

    /// The copy kept of `name`, if it is still the file's version (or was
    /// checked within `trustedFor`): at most one `stat` and no read, cheap
    /// enough for the event loop.
    func current(_ name: String) -> PublicFolderHandler.FileContent? {
        let now = now()
        let trusted = state.withLock { state -> PublicFolderHandler.FileContent? in
            guard trustedFor > 0, var entry = state.entries[name], now &- entry.checkedAt < trustedFor else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[name] = entry
            return entry.content
        }
        if let trusted { return trusted }
        var info = stat()
        // lstat: a link put in the page's place is not the page (and the
        // copy kept was read without following one).
        guard lstat(folder + "/" + name, &info) == 0 else {
            forget(name)
            return nil
        }
        let found = FileVersion(info)
        return state.withLock { state -> PublicFolderHandler.FileContent? in
            state.stats += 1
            guard var entry = state.entries[name], entry.content.version == found else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            entry.checkedAt = now
            state.entries[name] = entry
            return entry.content
        }
    }

    /// The gzipped copy kept of `content`, if there is one.
    func gzipped(_ content: PublicFolderHandler.FileContent, name: String) -> ByteBuffer? {
        state.withLock { state in
            state.entries[name].flatMap { $0.content.version == content.version ? $0.gzipped : nil }
        }
    }

    /// The file `name`: from memory when its inode, time and size are
    /// still those of the copy kept, else from disk (and kept).
    func read(_ name: String) -> PublicFolderHandler.Lookup {
        current(name).map(PublicFolderHandler.Lookup.file) ?? load(name)
    }

    /// The file `name` from disk, kept: for a caller that found no current
    /// copy (`current`) a moment ago.
    func load(_ name: String) -> PublicFolderHandler.Lookup {
        let checked = now()
        let found = PublicFolderHandler.Lookup.onDisk(name, in: folder)
        guard case .file(let content) = found else {
            forget(name)
            return found
        }
        store(name) { state in
            state.diskReads += 1
            return Entry(content: content, gzipped: nil, lastUse: 0, checkedAt: checked)
        }
        return found
    }

    /// `content` gzipped: computed once for each version of its file.
    func gzip(_ content: PublicFolderHandler.FileContent, name: String) -> ByteBuffer? {
        if let kept = gzipped(content, name: name) { return kept }
        guard let packed = ContentCoding.gzip(content.bytes) else { return nil }
        let checked = now()
        store(name) { state in
            state.compressions += 1
            var entry = state.entries[name] ?? Entry(content: content, gzipped: nil, lastUse: 0, checkedAt: checked)
            guard entry.content.version == content.version else { return entry }
            entry.gzipped = packed
            return entry
        }
        return packed
    }

    /// Forgets `name`: the next request reads it afresh. blogd calls it
    /// for each page it writes, so the trust window never shows its own
    /// writes late.
    func changed(_ name: String) {
        forget(name)
    }

    private func forget(_ name: String) {
        state.withLock { state in
            if let gone = state.entries.removeValue(forKey: name) { state.bytes -= gone.bytes }
        }
    }

    /// Puts what `make` returns under `name`, then evicts the least recently
    /// used entries until the bytes fit.
    private func store(_ name: String, _ make: (inout State) -> Entry) {
        state.withLock { state in
            var entry = make(&state)
            state.clock += 1
            entry.lastUse = state.clock
            if let old = state.entries[name] { state.bytes -= old.bytes }
            guard entry.bytes <= capacity else {
                state.entries[name] = nil
                return
            }
            state.entries[name] = entry
            state.bytes += entry.bytes
            while state.bytes > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.bytes
            }
        }
    }
}
