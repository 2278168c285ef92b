import BlogWire

/// The GPS position in an EXIF block, read from its TIFF structure by
/// hand: vips offers the tags only as display text ("33/1 52/1 192/25
/// (33, 52, 7.68, ...)"), which is no format to rely on.
///
/// The block comes from an upload, so every offset and count is checked
/// against its length; anything out of place means "no position".
///
///     ExifGPS.place(in: exifBlock)   // Place(latitude: "-33.8688", longitude: "-70.6693")
public enum ExifGPS {
    private static let gpsIFDTag: UInt16 = 0x8825
    private static let latitudeRefTag: UInt16 = 1, latitudeTag: UInt16 = 2
    private static let longitudeRefTag: UInt16 = 3, longitudeTag: UInt16 = 4
    private static let statusTag: UInt16 = 9
    private static let asciiType: UInt16 = 2, longType: UInt16 = 4, rationalType: UInt16 = 5, ifdType: UInt16 = 13
    /// An IFD of more entries is not a camera's: give up rather than walk it.
    private static let maxEntries = 1_000
    /// 1e-7 degrees is about 1 cm: past any phone's GPS, within `Place`'s 10.
    private static let decimals = 7

    /// The position in `exif` (an EXIF block as vips or a file holds it),
    /// or nil when it has none, a void one, or anything out of place.
    public static func place(in exif: [UInt8]) -> Place? {
        // JPEG's APP1 keeps the "Exif\0\0" header in vips's blob; PNG's
        // eXIf, WebP's EXIF and HEIF's item start at the TIFF header.
        var tiff = exif[...]
        if tiff.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) { tiff = tiff.dropFirst(6) }
        let reader = Reader(bytes: Array(tiff))
        guard let entries = reader.ifd(at: reader.firstIFD),
              let gps = entries.first(where: { $0.tag == gpsIFDTag && ($0.type == longType || $0.type == ifdType) }),
              let gpsEntries = reader.ifd(at: Int(gps.value)) else { return nil }
        func entry(_ tag: UInt16) -> Reader.Entry? { gpsEntries.first { $0.tag == tag } }
        // Status "V" is a receiver saying its fix is void.
        if let status = entry(statusTag), reader.letter(status) == UInt8(ascii: "V") { return nil }
        guard let latitudeRef = entry(latitudeRefTag).flatMap(reader.letter),
              let longitudeRef = entry(longitudeRefTag).flatMap(reader.letter),
              let latitude = entry(latitudeTag).flatMap(reader.degrees),
              let longitude = entry(longitudeTag).flatMap(reader.degrees) else { return nil }
        let latitudeSign: Double, longitudeSign: Double
        switch latitudeRef | 0x20 {  // lowercased
        case UInt8(ascii: "n"): latitudeSign = 1
        case UInt8(ascii: "s"): latitudeSign = -1
        default: return nil
        }
        switch longitudeRef | 0x20 {
        case UInt8(ascii: "e"): longitudeSign = 1
        case UInt8(ascii: "w"): longitudeSign = -1
        default: return nil
        }
        guard let latitudeText = decimal(latitudeSign * latitude),
              let longitudeText = decimal(longitudeSign * longitude) else { return nil }
        // Place refuses what is out of range (a latitude of 95 degrees).
        return try? Place(latitude: latitudeText, longitude: longitudeText)
    }

    /// `value` as the plain decimal `Place` takes: no exponent, at most
    /// `decimals` digits after the point, trailing zeros dropped.
    static func decimal(_ value: Double) -> String? {
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        // Keeps the conversion to an integer from trapping.
        guard value.isFinite, abs(value) < 1_000 else { return nil }
        let scaled = UInt64((abs(value) * scale).rounded())
        let whole = scaled / UInt64(scale), fraction = scaled % UInt64(scale)
        var digits = String(fraction)
        digits = String(repeating: "0", count: decimals - digits.count) + digits
        while digits.last == "0" { digits.removeLast() }
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return sign + String(whole) + (digits.isEmpty ? "" : "." + digits)
    }

    /// Bounds-checked reads of a TIFF structure in either byte order.
    private struct Reader {
        struct Entry {
            var tag: UInt16
            var type: UInt16
            var count: UInt32
            /// The value itself when it fits in 4 bytes, else its offset.
            var value: UInt32
            /// Where the 4 value bytes are, for inline values.
            var valueOffset: Int
        }

        let bytes: [UInt8]
        let bigEndian: Bool

        init(bytes: [UInt8]) {
            self.bytes = bytes
            bigEndian = bytes.starts(with: [0x4D, 0x4D])  // "MM"; "II" is little-endian
        }

        var firstIFD: Int {
            guard bytes.count >= 8, bytes.starts(with: [0x49, 0x49]) || bigEndian,
                  let magic = u16(at: 2), magic == 42, let offset = u32(at: 4) else { return -1 }
            return Int(offset)
        }

        func u16(at offset: Int) -> UInt16? {
            guard offset >= 0, offset <= bytes.count - 2 else { return nil }
            let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        func u32(at offset: Int) -> UInt32? {
            guard let first = u16(at: offset), let second = u16(at: offset + 2) else { return nil }
            return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
        }

        func ifd(at offset: Int) -> [Entry]? {
            guard let count = u16(at: offset), Int(count) <= ExifGPS.maxEntries else { return nil }
            var entries: [Entry] = []
            for index in 0..<Int(count) {
                let at = offset + 2 + 12 * index
                guard let tag = u16(at: at), let type = u16(at: at + 2), let count = u32(at: at + 4),
                      let value = u32(at: at + 8) else { return nil }
                entries.append(Entry(tag: tag, type: type, count: count, value: value, valueOffset: at + 8))
            }
            return entries
        }

        /// The first letter of a short ASCII value ("N\0", "S\0", "V\0").
        func letter(_ entry: Entry) -> UInt8? {
            guard entry.type == ExifGPS.asciiType, (1...4).contains(entry.count) else { return nil }
            return bytes[entry.valueOffset]
        }

        /// Degrees, minutes and seconds as three unsigned rationals.
        func degrees(_ entry: Entry) -> Double? {
            guard entry.type == ExifGPS.rationalType, entry.count == 3 else { return nil }
            var total = 0.0, unit = 1.0
            for index in 0..<3 {
                let at = Int(entry.value) + 8 * index
                guard let numerator = u32(at: at), let denominator = u32(at: at + 4), denominator != 0 else {
                    return nil
                }
                total += Double(numerator) / Double(denominator) / unit
                unit *= 60
            }
            return total
        }
    }
}
