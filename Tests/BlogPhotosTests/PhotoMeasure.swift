import BlogPhotos
import CLinux
import Foundation
import Testing

/// Not a test: what one photo costs, for docs/photos.md. Runs only with
/// `BLOGD_PHOTO_MEASURE=FILE` (scripts/photo-measure.sh sets it), and
/// prints the time per photo and the process's resident memory: the
/// first photo (which also starts vips: its modules, its threads) and
/// 20 after it. `BLOGD_PHOTO_MEASURE_MMAP=1` first sets the allocator's
/// mmap threshold to 1 MiB as `blogd serve` does, so that large buffers
/// go back to the system when freed instead of staying in malloc's
/// per-thread arenas.
@Suite("Photo measurement")
struct PhotoMeasure {
    static let environment = ProcessInfo.processInfo.environment
    static let file = environment["BLOGD_PHOTO_MEASURE"]

    private func milliseconds(_ duration: Duration) -> Int { Int((duration / .milliseconds(1)).rounded()) }
    private func mebibytes(_ bytes: Int) -> Int { bytes >> 20 }

    private func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }

    /// CPU time of every thread of the process (user + system): unlike
    /// the wall clock, not stretched by other work on a shared machine.
    private func cpuTime() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let micro = Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000
            + Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return .microseconds(micro)
    }

    @Test(.enabled(if: file != nil))
    func measureOnePhoto() throws {
        let mmap = Self.environment["BLOGD_PHOTO_MEASURE_MMAP"] == "1"
        if mmap { _ = clinux_set_mmap_threshold(1 << 20) }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: try #require(Self.file))))
        let clock = ContinuousClock()
        resetPeakResident()
        let start = peakResidentBytes()
        var began = clock.now
        var photo = try PhotoProcessor.process(bytes, declaredType: "image/jpeg")
        let first = clock.now - began
        let firstPeak = peakResidentBytes()

        var times: [Int] = []
        let cpuBefore = cpuTime()
        for _ in 0..<20 {
            began = clock.now
            photo = try PhotoProcessor.process(bytes, declaredType: "image/jpeg")
            times.append(milliseconds(clock.now - began))
        }
        let cpuPerPhoto = milliseconds((cpuTime() - cpuBefore) / 20)
        times.sort()
        let label = mmap ? "mmap threshold 1 MiB (as blogd)" : "default malloc"
        print("photo-measure [\(label)]: \(bytes.count) bytes in; out \(photo.width)x\(photo.height) \(photo.image.count) bytes + thumbnail \(photo.thumbnailWidth)x\(photo.thumbnailHeight) \(photo.thumbnail.count) bytes")
        print("photo-measure [\(label)]: first photo \(milliseconds(first)) ms, resident \(mebibytes(start)) -> peak \(mebibytes(firstPeak)) MiB")
        print("photo-measure [\(label)]: 20 more: \(times.first!)-\(times.last!) ms, median \(times[10]) ms wall, \(cpuPerPhoto) ms CPU each; peak \(mebibytes(peakResidentBytes())) MiB, resident after \(mebibytes(residentBytes())) MiB")
    }
}
