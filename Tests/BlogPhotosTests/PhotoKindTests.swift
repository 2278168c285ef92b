import Testing

@testable import BlogPhotos

@Suite("PhotoKind: magic bytes and MIME types")
struct PhotoKindTests {
    private func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp\(major)".utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            + [0, 0, 0, 8] + Array("meta".utf8)
    }

    @Test func magicBytes() {
        #expect(PhotoKind(sniffing: [0xFF, 0xD8, 0xFF, 0xE1, 0, 0]) == .jpeg)
        #expect(PhotoKind(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]) == .png)
        #expect(PhotoKind(sniffing: Array("RIFF\u{1}\0\0\0WEBPVP8 ".utf8)) == .webp)
        #expect(PhotoKind(sniffing: ftyp("heic", ["mif1", "heic"])) == .heic)
        #expect(PhotoKind(sniffing: ftyp("mif1", ["mif1", "heic"])) == .heic)
        #expect(PhotoKind(sniffing: ftyp("heix", [])) == .heic)
    }

    @Test func lookAlikesAreNot() {
        #expect(PhotoKind(sniffing: []) == nil)
        #expect(PhotoKind(sniffing: [0xFF, 0xD8]) == nil)
        #expect(PhotoKind(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A]) == nil)
        #expect(PhotoKind(sniffing: Array("RIFF\u{1}\0\0\0WAVEfmt ".utf8)) == nil)
        #expect(PhotoKind(sniffing: ftyp("avif", ["avif", "mif1", "miaf"])) == nil)  // AV1, not HEVC
        #expect(PhotoKind(sniffing: ftyp("mif1", ["mif1", "avif"])) == nil)
        #expect(PhotoKind(sniffing: ftyp("isom", ["isom", "mp42"])) == nil)  // a video
        var lying = ftyp("mif1", ["mif1", "heic"])
        lying[3] = 200  // a box larger than the file
        #expect(PhotoKind(sniffing: lying) == nil)
        #expect(PhotoKind(sniffing: Array("GIF89a".utf8)) == nil)
        #expect(PhotoKind(sniffing: Array("<svg xmlns=".utf8)) == nil)
    }

    @Test func mimeTypes() {
        #expect(PhotoKind.allCases.map(\.mimeType) == ["image/jpeg", "image/png", "image/webp", "image/heic"])
        for kind in PhotoKind.allCases { #expect(PhotoKind(mimeType: kind.mimeType) == kind) }
        #expect(PhotoKind(mimeType: "image/jpg") == .jpeg)
        #expect(PhotoKind(mimeType: "Image/JPEG; charset=binary") == .jpeg)
        #expect(PhotoKind(mimeType: " image/png ") == .png)
        #expect(PhotoKind(mimeType: "image/heif") == .heic)
        #expect(PhotoKind(mimeType: "image/gif") == nil)
        #expect(PhotoKind(mimeType: "text/plain") == nil)
        #expect(PhotoKind(mimeType: "") == nil)
    }
}

@Suite("PhotoError and PhotoLimits")
struct PhotoErrorTests {
    @Test func descriptionsAreShortSentences() {
        let errors: [PhotoError] = [
            .tooLarge(bytes: 20_000_000), .tooManyPixels(width: 30_000, height: 30_000), .unsupportedType,
            .typeMismatch(declared: "image/jpeg", actual: "image/png"), .unreadable("VipsJpeg: Premature end of input file"),
            .encodeFailed("out of memory"),
        ]
        for error in errors {
            #expect(error.description.hasSuffix(".") && error.description.count < 80, "\(error.description)")
            #expect(!error.description.contains("Vips"), "vips's text stays out of the page")
        }
        #expect(PhotoError.tooLarge(bytes: 20_000_000).description == "The photo is too large (20.0 MB).")
        #expect(PhotoError.tooLarge(bytes: 10_485_761).description == "The photo is too large (10.4 MB).")
        #expect(PhotoError.tooManyPixels(width: 30_000, height: 30_000).description.contains("30000 x 30000"))
        #expect(PhotoError.typeMismatch(declared: "image/jpeg", actual: "image/png").description
            == "The file was sent as image/jpeg but is image/png.")
        #expect(errors.filter(\.isClientError).count == 5)
    }

    @Test func defaultLimits() {
        let limits = PhotoLimits()
        #expect(limits.maxBytes == 10 * 1024 * 1024)
        #expect(limits.maxPixels == 50_000_000)
        #expect(limits.maxSide == 2048)
        #expect(limits.thumbnailSide == 480)
    }
}

@Suite("PNG bomb builder")
struct PNGBombTests {
    @Test func checksumsMatchKnownValues() {
        #expect(crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(pngBomb(width: 30_000, height: 30_000).suffix(12) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82][...])
    }
}
