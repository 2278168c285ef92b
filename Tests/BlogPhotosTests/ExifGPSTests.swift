import BlogWire
import Testing

@testable import BlogPhotos

/// The EXIF GPS reader on hand-made TIFF structures, both byte orders,
/// and on broken ones: a hostile upload may point anywhere.
@Suite("ExifGPS")
struct ExifGPSTests {
    /// A TIFF block: IFD0 with only a GPS pointer, then the GPS IFD with
    /// the given entries, then the rationals.
    private func exif(bigEndian: Bool, latitude: (String, [(UInt32, UInt32)])?, longitude: (String, [(UInt32, UInt32)])?,
                      status: String? = nil, prefix: Bool = true) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) }
            return bigEndian ? bytes : bytes.reversed()
        }
        func ascii(_ letter: String) -> [UInt8] { Array(letter.utf8) + [0, 0, 0] }
        var entries: [(UInt16, UInt16, UInt32, [UInt8])] = []  // tag, type, count, value or (offset placeholder)
        var rationals: [[(UInt32, UInt32)]] = []
        if let (ref, value) = latitude {
            entries.append((1, 2, 2, ascii(ref)))
            entries.append((2, 5, 3, []))
            rationals.append(value)
        }
        if let (ref, value) = longitude {
            entries.append((3, 2, 2, ascii(ref)))
            entries.append((4, 5, 3, []))
            rationals.append(value)
        }
        if let status { entries.append((9, 2, 2, ascii(status))) }
        let ifd0 = 8, gps = ifd0 + 2 + 12 + 4
        var data = Array((bigEndian ? "MM" : "II").utf8) + u16(42) + u32(UInt32(ifd0))
        data += u16(1) + u16(0x8825) + u16(4) + u32(1) + u32(UInt32(gps)) + u32(0)
        var rationalOffset = gps + 2 + 12 * entries.count + 4
        data += u16(UInt16(entries.count))
        var rationalIndex = 0
        for (tag, type, count, value) in entries {
            data += u16(tag) + u16(type) + u32(count)
            if type == 5 {
                data += u32(UInt32(rationalOffset))
                rationalOffset += 8 * rationals[rationalIndex].count
                rationalIndex += 1
            } else {
                data += value.prefix(4)
            }
        }
        data += u32(0)
        for triple in rationals { for (n, d) in triple { data += u32(n) + u32(d) } }
        return (prefix ? Array("Exif\0\0".utf8) : []) + data
    }

    @Test(arguments: [true, false])
    func signsFollowTheReferences(bigEndian: Bool) throws {
        let dms: [(UInt32, UInt32)] = [(33, 1), (52, 1), (768, 100)]
        let lon: [(UInt32, UInt32)] = [(70, 1), (40, 1), (948, 100)]
        for (ns, ew, lat, lng) in [("S", "W", "-33.8688", "-70.6693"), ("N", "E", "33.8688", "70.6693"),
                                   ("n", "w", "33.8688", "-70.6693")] {
            let block = exif(bigEndian: bigEndian, latitude: (ns, dms), longitude: (ew, lon), prefix: !bigEndian)
            #expect(ExifGPS.place(in: block) == (try Place(latitude: lat, longitude: lng)))
        }
    }

    @Test func decimalDegreesAndFractionalMinutes() throws {
        let block = exif(bigEndian: false, latitude: ("N", [(481374, 10_000), (0, 1), (0, 1)]),
                         longitude: ("E", [(11, 1), (345_300, 10_000), (0, 1)]))
        #expect(ExifGPS.place(in: block) == (try Place(latitude: "48.1374", longitude: "11.5755")))
    }

    @Test func whatIsMissingOrBrokenGivesNoPlace() {
        let good: [(UInt32, UInt32)] = [(10, 1), (0, 1), (0, 1)]
        #expect(ExifGPS.place(in: exif(bigEndian: false, latitude: ("N", good), longitude: nil)) == nil)
        #expect(ExifGPS.place(in: exif(bigEndian: false, latitude: ("X", good), longitude: ("E", good))) == nil)
        #expect(ExifGPS.place(in: exif(bigEndian: false, latitude: ("N", [(10, 0), (0, 1), (0, 1)]), longitude: ("E", good))) == nil)
        #expect(ExifGPS.place(in: exif(bigEndian: false, latitude: ("N", [(95, 1), (0, 1), (0, 1)]), longitude: ("E", good))) == nil)
        #expect(ExifGPS.place(in: exif(bigEndian: false, latitude: ("N", good), longitude: ("E", good), status: "V")) == nil)
        #expect(ExifGPS.place(in: exif(bigEndian: false, latitude: ("N", good), longitude: ("E", good), status: "A")) != nil)
        #expect(ExifGPS.place(in: []) == nil)
        #expect(ExifGPS.place(in: Array("Exif\0\0".utf8)) == nil)
        #expect(ExifGPS.place(in: Array("Exif\0\0II*\0\u{FF}\u{FF}\u{FF}\u{7F}".utf8)) == nil)
        // Every truncation of a good block, and every one byte corruption of
        // its header and directories: no trap, no read out of bounds.
        let block = exif(bigEndian: true, latitude: ("S", good), longitude: ("W", good))
        for length in 0..<block.count { _ = ExifGPS.place(in: Array(block.prefix(length))) }
        for index in 0..<min(block.count, 80) {
            for value: UInt8 in [0, 0x7F, 0xFF] {
                var broken = block
                broken[index] = value
                _ = ExifGPS.place(in: broken)
            }
        }
    }

    @Test func decimals() {
        #expect(ExifGPS.decimal(-33.868800000000004) == "-33.8688")
        #expect(ExifGPS.decimal(0) == "0")
        #expect(ExifGPS.decimal(-0.00000001) == "0")
        #expect(ExifGPS.decimal(179.99999999) == "180")
        #expect(ExifGPS.decimal(12.5) == "12.5")
        #expect(ExifGPS.decimal(.nan) == nil)
        #expect(ExifGPS.decimal(1e300) == nil)
    }
}
