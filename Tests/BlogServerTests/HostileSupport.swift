import BlogSockets
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Helpers for the hostile-input, flood and password-guessing tests.
enum Hostile {
    /// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`, ...), or
    /// `nil` where there is no such file.
    static func procStatus(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return number.map { $0 * 1024 }
        }
        return nil
    }

    /// Resident size of this process right now, in bytes.
    static var residentBytes: Int { procStatus("VmRSS") ?? 0 }

    /// Peak resident size of this process so far, in bytes.
    static var peakResidentBytes: Int { procStatus("VmHWM") ?? 0 }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }

    /// Raises the soft limit on open files to the hard limit; returns the
    /// soft limit in force afterwards.
    @discardableResult
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The names in a folder (hidden ones included), or an empty set.
    /// The blog's index page (`index.html`, rewritten in the background
    /// after registers and posts, and its temporary files) is left out.
    static func listing(_ folder: URL) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            // The index, the feeds, the sitemap and robots.txt are written in
            // the background.
            $0 != "index.html" && !$0.hasPrefix(".index.html.") && !$0.hasSuffix(".atom") && !$0.contains(".atom.")
                && !($0.hasPrefix("sitemap") && $0.hasSuffix(".xml")) && $0 != "robots.txt"
        })
    }

    /// Sends without blocking: the bytes the kernel took (0 when its buffers
    /// are full), or `nil` when the connection failed.
    static func sendWithoutBlocking(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int? {
        while true {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: return nil
            }
        }
    }

    /// Whether `fd` can take more bytes within `seconds`.
    static func isWritable(_ fd: Int32, within seconds: Double) -> Bool {
        let events = Socket(fd: fd).wait(for: Int16(POLLOUT), until: Deadline(seconds: seconds)) ?? 0
        return events & Int16(POLLOUT) != 0
    }

    /// Sets a socket's send buffer (the kernel doubles it).
    static func setSendBuffer(_ fd: Int32, _ bytes: Int32) {
        try? Socket(fd: fd).setOption(SOL_SOCKET, SO_SNDBUF, bytes)
    }

    /// How many times `needle` occurs in `haystack` (non-overlapping).
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard !needle.isEmpty, haystack.count >= needle.count else { return 0 }
        var count = 0
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) {
                count += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return count
    }
}

extension ServerFixture {
    /// One message on a connection of its own, in either connection mode:
    /// the first reply; the connection is closed after it.
    func askOne(_ message: String) throws -> String {
        let client = try client()
        defer { client.close() }
        try client.send(message)
        return try client.readReply()
    }
}

