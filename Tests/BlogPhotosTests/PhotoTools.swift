import BlogTestSupport
import Foundation
import Testing

/// The real tools the photo tests make and inspect images with: `vips`
/// and `vipsheader` (libvips-tools) and `exiftool` (libimage-exiftool-perl),
/// run through /usr/bin/env. Without them the tests that need them are
/// skipped, with one line saying so, unless `BLOGD_REQUIRE_PHOTO_TOOLS=1`
/// (CI) makes that a failure.
enum PhotoTools {
    static let names = ["vips", "vipsheader", "exiftool"]

    static let missing: [String] = names.filter { name in
        (try? tool("sh", ["-c", "command -v \(name) >/dev/null"]).status) != 0
    }

    static var required: Bool { ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PHOTO_TOOLS"] == "1" }

    /// For `.enabled(if:)`: true when the tools are here or required.
    static let enabled: Bool = {
        if missing.isEmpty || required { return true }
        print("skipping photo tool tests: \(missing.joined(separator: ", ")) not found (apt-get install libvips-tools libimage-exiftool-perl, or set BLOGD_REQUIRE_PHOTO_TOOLS=1 to fail instead)")
        return false
    }()

    /// Fails the test (it runs only when required) if a tool is missing.
    static func check() throws {
        try #require(missing.isEmpty, "missing \(missing.joined(separator: ", ")): apt-get install libvips-tools libimage-exiftool-perl")
    }

    /// Runs a tool; a non-zero exit fails the test with its command line.
    @discardableResult
    static func run(_ name: String, _ arguments: [String]) throws -> String {
        let (status, output) = try tool(name, arguments)
        try #require(status == 0, "\(name) \(arguments.joined(separator: " ")) exited \(status)")
        return output
    }

    /// `exiftool -j -a -G1`: every tag of every group, duplicates too,
    /// keyed "Group:Tag".
    static func tags(of file: URL) throws -> [String: Any] {
        let json = try run("exiftool", ["-j", "-a", "-G1", file.path])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return try #require(array.first)
    }

    static func groups(_ tags: [String: Any]) -> Set<String> {
        Set(tags.keys.compactMap { key in key.firstIndex(of: ":").map { String(key[..<$0]) } })
    }
}

/// A temporary folder for one test's files, removed at its end.
final class Workspace {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-photos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    func read(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: url(name))) }

    func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let file = url(name)
        try Data(bytes).write(to: file)
        return file
    }

    /// A `width` x `height` sRGB image named `name` (its extension picks
    /// the format), a grey ramp from black at the left edge to white at
    /// the right, so that a rotation shows in its pixels.
    @discardableResult
    func image(_ name: String, width: Int, height: Int) throws -> URL {
        let stem = url(UUID().uuidString).path
        try PhotoTools.run("vips", ["xyz", "\(stem)-xy.v", "\(width)", "\(height)"])
        try PhotoTools.run("vips", ["extract_band", "\(stem)-xy.v", "\(stem)-x.v", "0"])
        try PhotoTools.run("vips", ["linear", "\(stem)-x.v", "\(stem)-g.v", "\(255.0 / Double(max(width - 1, 1)))", "0", "--uchar"])
        try PhotoTools.run("vips", ["bandjoin", "\(stem)-g.v \(stem)-g.v \(stem)-g.v", "\(stem)-rgb.v"])
        try PhotoTools.run("vips", ["copy", "\(stem)-rgb.v", url(name).path])
        for part in ["xy", "x", "g", "rgb"] { try? FileManager.default.removeItem(atPath: "\(stem)-\(part).v") }
        return url(name)
    }

    /// The image's size as vips reads it back.
    func size(_ file: URL) throws -> (width: Int, height: Int) {
        let width = try PhotoTools.run("vipsheader", ["-f", "width", file.path])
        let height = try PhotoTools.run("vipsheader", ["-f", "height", file.path])
        return (try #require(Int(width.trimmed)), try #require(Int(height.trimmed)))
    }

    /// The first band of the pixel at (x, y).
    func pixel(_ file: URL, x: Int, y: Int) throws -> Double {
        try #require(try bands(file, x: x, y: y).first)
    }

    /// Every band of the pixel at (x, y).
    func bands(_ file: URL, x: Int, y: Int) throws -> [Double] {
        let text = try PhotoTools.run("vips", ["getpoint", file.path, "\(x)", "\(y)"])
        return text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// The process's peak resident memory in bytes (VmHWM).
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return kilobytes * 1024
}

/// Lowers the peak to what is resident now (Linux 4.0+), so a later
/// reading shows what came after; where not allowed, the old peak stays
/// and the growth measured from it is a lower bound no smaller test
/// could pass by mistake.
func resetPeakResident() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}
