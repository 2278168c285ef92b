import BlogWire
import Foundation
import Testing

@testable import BlogPhotos

/// The processor on real files made by `vips` and tagged by `exiftool`,
/// its output read back by both. Serialized: the memory test reads the
/// process's peak, which the other photos here would raise.
@Suite("PhotoProcessor", .serialized)
struct PhotoProcessorTests {
    private static func process(_ bytes: [UInt8], declaredType: String? = nil,
                                limits: PhotoLimits = .init()) -> Result<ProcessedPhoto, PhotoError> {
        Result { () throws(PhotoError) in try PhotoProcessor.process(bytes, declaredType: declaredType, limits: limits) }
    }

    private func process(_ bytes: [UInt8], declaredType: String? = nil,
                         limits: PhotoLimits = .init()) -> Result<ProcessedPhoto, PhotoError> {
        Self.process(bytes, declaredType: declaredType, limits: limits)
    }

    /// Groups exiftool may show in a published image: the file system's
    /// facts, the JPEG's own structure, exiftool's sums. Nothing a camera
    /// or editor wrote.
    private static let allowedGroups: Set<String> = ["ExifTool", "System", "File", "JFIF", "Composite"]

    private func expectNoMetadata(_ file: URL) throws {
        let tags = try PhotoTools.tags(of: file)
        let groups = PhotoTools.groups(tags)
        #expect(groups.isSubset(of: Self.allowedGroups), "unexpected groups \(groups.subtracting(Self.allowedGroups)) in \(file.lastPathComponent)")
        for group in ["IFD0", "IFD1", "ExifIFD", "GPS", "XMP-x", "XMP-dc", "IPTC", "ICC_Profile", "ICC-header", "Photoshop", "MakerNotes"] {
            #expect(!groups.contains(group), "\(group) left in \(file.lastPathComponent)")
        }
        for (key, value) in tags {
            #expect(!key.contains("GPS") && !key.hasSuffix(":Model") && !key.hasSuffix(":Make"), "\(key) left")
            let text = "\(value)"
            #expect(!text.contains("Test Cam") && !text.contains("secret"), "\(key) = \(text) left")
        }
    }

    // MARK: Metadata

    @Test(.enabled(if: PhotoTools.enabled), arguments: [
        ("jpg", "-33.8688", "-70.6693"),  // Santiago: south and west
        ("png", "48.1374", "11.5755"),  // Munich: north and east
        ("webp", "-33.8688", "151.2093"),  // Sydney: south and east
        ("heic", "40.7128", "-74.006"),  // New York: north and west
    ])
    func everyMetadataBlockIsStrippedAndTheLocationKept(format: String, latitude: String, longitude: String) throws {
        try PhotoTools.check()
        let work = try Workspace()
        let original = try work.image("original.\(format)", width: 640, height: 480)
        let north = !latitude.hasPrefix("-"), east = !longitude.hasPrefix("-")
        try PhotoTools.run("exiftool", [
            "-q", "-overwrite_original",
            "-GPSLatitude=\(latitude.drop { $0 == "-" })", "-GPSLatitudeRef=\(north ? "N" : "S")",
            "-GPSLongitude=\(longitude.drop { $0 == "-" })", "-GPSLongitudeRef=\(east ? "E" : "W")",
            "-EXIF:Make=Testco", "-EXIF:Model=Test Cam X1", "-EXIF:SerialNumber=secret-serial",
            "-XMP-dc:Title=secret title", "-XMP-dc:Creator=secret author",
        ] + (format == "jpg" ? ["-IPTC:Keywords=secret keyword"] : []) + [original.path])
        // The input really carries what must go.
        let before = try PhotoTools.groups(PhotoTools.tags(of: original))
        #expect(before.isSuperset(of: ["GPS", "XMP-dc"]) && (before.contains("IFD0") || before.contains("ExifIFD")), "\(before)")

        let photo = try process(try work.read("original.\(format)")).get()
        #expect(photo.location == (try Place(latitude: latitude, longitude: longitude)))
        #expect((photo.width, photo.height) == (640, 480))
        try expectNoMetadata(try work.write(photo.image, "published.jpg"))
        try expectNoMetadata(try work.write(photo.thumbnail, "thumbnail.jpg"))
    }

    @Test(.enabled(if: PhotoTools.enabled))
    func anICCProfileIsAppliedThenStripped() throws {
        try PhotoTools.check()
        let work = try Workspace()
        // Pure sRGB red, converted to Display P3 with the P3 profile
        // embedded: its numbers there are about (234, 51, 35).
        try PhotoTools.run("vips", ["black", work.url("black.v").path, "300", "200", "--bands", "3"])
        try PhotoTools.run("vips", ["linear", work.url("black.v").path, work.url("red.v").path, "1 1 1", "255 0 0", "--uchar"])
        try PhotoTools.run("vips", ["icc_transform", work.url("red.v").path, work.url("p3.jpg").path, "p3"])
        #expect(PhotoTools.groups(try PhotoTools.tags(of: work.url("p3.jpg"))).contains("ICC_Profile"))
        let p3 = try work.bands(work.url("p3.jpg"), x: 150, y: 100)
        #expect(p3[0] < 245 && p3[1] > 30, "\(p3)")

        let photo = try process(try work.read("p3.jpg")).get()
        let published = try work.write(photo.image, "published.jpg")
        try expectNoMetadata(published)
        // Back in sRGB, so that the profile can go: red again, not P3's
        // numbers read as sRGB (a duller, orange red).
        let srgb = try work.bands(published, x: 150, y: 100)
        #expect(srgb[0] > 245 && srgb[1] < 15 && srgb[2] < 15, "\(srgb)")
        #expect(photo.location == nil)
    }

    // MARK: Sizes

    @Test(.enabled(if: PhotoTools.enabled))
    func aLargePhotoIsFittedAndThumbnailed() throws {
        try PhotoTools.check()
        let work = try Workspace()
        try work.image("big.jpg", width: 4000, height: 3000)
        let photo = try process(try work.read("big.jpg"), declaredType: "image/jpeg").get()
        #expect((photo.width, photo.height) == (2048, 1536))
        #expect((photo.thumbnailWidth, photo.thumbnailHeight) == (480, 360))
        #expect(try work.size(try work.write(photo.image, "published.jpg")) == (2048, 1536))
        #expect(try work.size(try work.write(photo.thumbnail, "thumbnail.jpg")) == (480, 360))
        #expect(photo.image.starts(with: [0xFF, 0xD8, 0xFF]) && photo.thumbnail.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(photo.location == nil)
    }

    @Test(.enabled(if: PhotoTools.enabled))
    func aSmallPhotoIsNotEnlarged() throws {
        try PhotoTools.check()
        let work = try Workspace()
        try work.image("small.png", width: 300, height: 200)
        let photo = try process(try work.read("small.png"), declaredType: "image/png").get()
        #expect((photo.width, photo.height) == (300, 200))
        #expect((photo.thumbnailWidth, photo.thumbnailHeight) == (300, 200))
        #expect(try work.size(try work.write(photo.image, "published.jpg")) == (300, 200))
    }

    @Test(.enabled(if: PhotoTools.enabled))
    func limitsAreTheCallers() throws {
        try PhotoTools.check()
        let work = try Workspace()
        try work.image("photo.webp", width: 1000, height: 500)
        let photo = try process(try work.read("photo.webp"), limits: PhotoLimits(maxSide: 400, thumbnailSide: 100)).get()
        #expect((photo.width, photo.height, photo.thumbnailWidth, photo.thumbnailHeight) == (400, 200, 100, 50))
        #expect(process(try work.read("photo.webp"), limits: PhotoLimits(maxPixels: 499_999)) == .failure(.tooManyPixels(width: 1000, height: 500)))
        #expect(process(try work.read("photo.webp"), limits: PhotoLimits(maxPixels: 500_000)).map(\.width) == .success(1000))
    }

    @Test(.enabled(if: PhotoTools.enabled))
    func orientationSixIsTurnedUpright() throws {
        try PhotoTools.check()
        let work = try Workspace()
        let original = try work.image("turned.jpg", width: 600, height: 400)
        try PhotoTools.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", original.path])

        let photo = try process(try work.read("turned.jpg")).get()
        #expect((photo.width, photo.height) == (400, 600))
        #expect((photo.thumbnailWidth, photo.thumbnailHeight) == (320, 480))
        // Orientation 6 is "rotate 90 degrees clockwise to view": the
        // ramp's dark left edge comes out on top, its white right edge at
        // the bottom, and no orientation tag is left to turn it again.
        let published = try work.write(photo.image, "published.jpg")
        #expect(try work.pixel(published, x: 200, y: 5) < 16)
        #expect(try work.pixel(published, x: 200, y: 594) > 239)
        #expect(!(try PhotoTools.tags(of: published)).keys.contains { $0.hasSuffix(":Orientation") })
    }

    @Test(.enabled(if: PhotoTools.enabled))
    func transparencyBecomesWhite() throws {
        try PhotoTools.check()
        let work = try Workspace()
        let opaque = try work.image("opaque.v", width: 200, height: 100)
        try PhotoTools.run("vips", ["bandjoin_const", opaque.path, work.url("clear.png").path, "0"])
        let photo = try process(try work.read("clear.png")).get()
        let published = try work.write(photo.image, "published.jpg")
        #expect(try work.pixel(published, x: 10, y: 50) > 250)
    }

    // MARK: Refusals

    @Test func aPNGBombIsRefusedBeforeAnyPixelIsDecoded() throws {
        let bomb = pngBomb(width: 30_000, height: 30_000)
        #expect(bomb.count < 100)
        resetPeakResident()
        let before = peakResidentBytes()
        #expect(process(bomb, declaredType: "image/png") == .failure(.tooManyPixels(width: 30_000, height: 30_000)))
        // Decoding it would take 2.7 GB (30,000 x 30,000 x 3 bytes).
        let growth = peakResidentBytes() - before
        #expect(growth < 100 << 20, "peak resident memory grew by \(growth >> 20) MiB")
    }

    @Test func aHugeUploadIsRefusedBeforeItsBytesAreLookedAt() {
        // JPEG's magic bytes, then nothing valid: only the count matters.
        let upload = [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x42, count: 20_000_000 - 3)
        #expect(process(upload, declaredType: "image/jpeg") == .failure(.tooLarge(bytes: 20_000_000)))
        #expect(process([UInt8](repeating: 0, count: 10 << 20 + 1)) == .failure(.tooLarge(bytes: 10 << 20 + 1)))
        #expect(process([UInt8](repeating: 0, count: 10 << 20)) == .failure(.unsupportedType))
    }

    @Test(.enabled(if: PhotoTools.enabled), arguments: ["jpg", "png", "webp"])
    func aTruncatedPhotoIsUnreadable(format: String) throws {
        try PhotoTools.check()
        let work = try Workspace()
        try work.image("whole.\(format)", width: 800, height: 600)
        let whole = try work.read("whole.\(format)")
        #expect(throws: Never.self) { try PhotoProcessor.process(whole, declaredType: nil) }
        let result = process(Array(whole.prefix(whole.count * 2 / 3)))
        guard case .failure(.unreadable(let reason)) = result else {
            Issue.record("a truncated \(format) gave \(result)")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test func theDeclaredTypeMustNameWhatTheBytesAre() {
        let png = pngBomb(width: 1, height: 1)  // a whole 1 x 1 PNG
        #expect(process(png, declaredType: "image/jpeg") == .failure(.typeMismatch(declared: "image/jpeg", actual: "image/png")))
        #expect(process(png, declaredType: "text/plain") == .failure(.typeMismatch(declared: "text/plain", actual: "image/png")))
        #expect(process(png, declaredType: "image/webp") == .failure(.typeMismatch(declared: "image/webp", actual: "image/png")))
        for declared in [nil, "image/png", "IMAGE/PNG; name=x.png", "application/octet-stream", ""] as [String?] {
            #expect(process(png, declaredType: declared).map { [$0.width, $0.height] } == .success([1, 1]), "\(declared ?? "nil")")
        }
    }

    @Test func bytesOfNoAcceptedFormatAreUnsupported() throws {
        let work = try Workspace()
        let text = try work.write(Array("This is not a photo, whatever its name says.\n".utf8), "holiday.jpg")
        var random = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        let gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
        let avif: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8)
        for bytes in [try work.read(text.lastPathComponent), [], [0xFF, 0xD8], gif, avif, Array("RIFF\0\0\0\0WAVE".utf8)] {
            #expect(process(bytes, declaredType: "image/jpeg") == .failure(.unsupportedType))
        }
        if PhotoKind(sniffing: noise) == nil {  // one time in 2^24 noise starts like a JPEG
            #expect(process(noise) == .failure(.unsupportedType))
        }
    }

    // MARK: Threads

    @Test(.enabled(if: PhotoTools.enabled))
    func severalThreadsAtOnceGetTheirOwnResults() throws {
        try PhotoTools.check()
        let work = try Workspace()
        // Each job its own size, format and place, so that a mix-up shows;
        // a truncated one among them, so that failures do not leak.
        let sizes = [(1200, 900), (900, 1200), (640, 480), (3000, 2000), (500, 500), (2100, 700)]
        var jobs: [(bytes: [UInt8], expected: Result<(Int, Int, Place?), PhotoError>)] = []
        for (index, (width, height)) in sizes.enumerated() {
            let format = ["jpg", "png", "webp"][index % 3]
            let file = try work.image("\(index).\(format)", width: width, height: height)
            let place = try Place(latitude: "\(index + 10).5", longitude: "-\(index + 100).25")
            try PhotoTools.run("exiftool", ["-q", "-overwrite_original", "-GPSLatitude=\(index + 10).5", "-GPSLatitudeRef=N",
                                            "-GPSLongitude=\(index + 100).25", "-GPSLongitudeRef=W", file.path])
            let scale = min(1, 2048 / Double(max(width, height)))
            let fitted = ((Double(width) * scale).rounded(), (Double(height) * scale).rounded())
            jobs.append((try work.read(file.lastPathComponent), .success((Int(fitted.0), Int(fitted.1), place))))
        }
        let whole = jobs[0].bytes
        jobs.append((Array(whole.prefix(whole.count / 2)), .failure(.unreadable(""))))

        let rounds = 3, allJobs = jobs
        let results = Results(count: jobs.count * rounds)
        let group = DispatchGroup()
        for thread in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                for index in stride(from: thread, to: allJobs.count * rounds, by: 4) {
                    results.set(index, Self.process(allJobs[index % allJobs.count].bytes))
                }
            }.start()
        }
        group.wait()

        for index in 0..<jobs.count * rounds {
            let result = results.get(index)
            switch (jobs[index % jobs.count].expected, result) {
            case (.success(let expected), .success(let photo)?):
                #expect(photo.width == expected.0 && photo.height == expected.1 && photo.location == expected.2, "job \(index)")
            case (.failure, .failure(.unreadable)?):
                break
            default:
                Issue.record("job \(index): expected \(jobs[index % jobs.count].expected), got \(String(describing: result))")
            }
        }
    }
}

/// Results written by several threads, read after they are done.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<ProcessedPhoto, PhotoError>?]

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Result<ProcessedPhoto, PhotoError>) { lock.withLock { values[index] = value } }
    func get(_ index: Int) -> Result<ProcessedPhoto, PhotoError>? { lock.withLock { values[index] } }
}
