/// The upload formats accepted, told apart by their first bytes, never
/// by a file name or a client's word.
///
///     PhotoKind(sniffing: [0xFF, 0xD8, 0xFF, 0xE0])   // .jpeg
///     PhotoKind(mimeType: "image/jpg")                // .jpeg
public enum PhotoKind: String, CaseIterable, Sendable {
    case jpeg, png, webp, heic

    /// The MIME type a server names the format by.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        }
    }

    /// The kind whose magic bytes `bytes` starts with, or nil.
    public init?(sniffing bytes: [UInt8]) {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if Self.isHEIC(bytes) {
            self = .heic
        } else {
            return nil
        }
    }

    /// The kind a declared MIME type names (`image/jpeg; charset=x` and
    /// `IMAGE/JPEG` alike, with the aliases browsers still send), or nil.
    public init?(mimeType: String) {
        switch Self.essence(mimeType) {
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
        case "image/png", "image/x-png": self = .png
        case "image/webp": self = .webp
        case "image/heic", "image/heif": self = .heic
        default: return nil
        }
    }

    /// The type and subtype of a MIME type, lowercased, without parameters.
    static func essence(_ mimeType: String) -> String {
        let type = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(type.filter { $0 != " " && $0 != "\t" }).lowercased()
    }

    /// An ISO base media file whose `ftyp` box names an HEVC-coded HEIF
    /// brand. `mif1`/`msf1` alone say only "some HEIF" (AVIF too), so
    /// those count only with an HEVC brand among the compatible ones.
    private static func isHEIC(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard size >= 16, size <= bytes.count else { return false }
        let hevc: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
        let brand = { (offset: Int) in String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        let major = brand(8)
        if hevc.contains(major) { return true }
        guard major == "mif1" || major == "msf1" else { return false }
        // Compatible brands follow the major brand and its minor version.
        return stride(from: 16, to: size - 3, by: 4).contains { hevc.contains(brand($0)) }
    }
}
