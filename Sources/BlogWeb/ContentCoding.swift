import CompressNIO
import Foundation
import NIOCore

/// gzip for the pages, when a client asks for it (`Accept-Encoding`): a
/// 52 KB page of posts is about a sixth of that on the wire.
///
///     ContentCoding.acceptsGzip("gzip, deflate, br")   // true
///     ContentCoding.acceptsGzip("gzip;q=0, identity")  // false
enum ContentCoding {
    /// Bodies smaller than this go as they are: gzip's own header and
    /// trailer would eat what it saves.
    static let minimumBytes = 256

    /// Whether `acceptEncoding` allows gzip (RFC 9110 §12.5.3): named, or
    /// `*`, with a weight above zero.
    static func acceptsGzip(_ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        var gzip: Bool?
        var any: Bool?
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first?.lowercased(), !name.isEmpty else { continue }
            let weight = parts.dropFirst().first { $0.lowercased().hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            switch name {
            case "gzip", "x-gzip": gzip = weight > 0
            case "*": any = weight > 0
            default: break
            }
        }
        return gzip ?? any ?? false
    }

    /// `body` gzipped; nil if compressing fails (the body then goes as it is).
    static func gzip(_ body: ByteBuffer) -> ByteBuffer? {
        var input = body
        return try? input.compress(with: .gzip())
    }
}

