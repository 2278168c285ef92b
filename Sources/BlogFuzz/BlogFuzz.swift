import Foundation

// One executable for every fuzz target; BLOGFUZZ_TARGET names the one to
// run (codec when unset). scripts/fuzz.sh builds it with libFuzzer and
// AddressSanitizer; the plain build replays corpus files instead.

/// The target BLOGFUZZ_TARGET names; nil when it names none.
let environmentTarget: FuzzTarget?? = ProcessInfo.processInfo.environment["BLOGFUZZ_TARGET"].map(FuzzTarget.init(rawValue:))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let target = environmentTarget ?? .codec
    target?.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("BlogFuzz: \(message)\n".utf8))
    exit(2)
}

#if !FUZZING
/// Without libFuzzer: replays the files given, or the files in the
/// folders given, so a crash found once stays a regression check. A
/// file's target is BLOGFUZZ_TARGET, else the name of its folder
/// (Fuzz/corpus/multipart/...); a folder of folders (Fuzz/corpus) is
/// replayed folder by folder.
@main
enum Replay {
    static func main() {
        if case .some(.none) = environmentTarget { fail("BLOGFUZZ_TARGET names no target (\(FuzzTarget.names))") }
        var counts: [FuzzTarget: Int] = [:]
        for path in CommandLine.arguments.dropFirst() {
            for (target, file) in inputs(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
                target.check(Array(data))
                counts[target, default: 0] += 1
            }
        }
        for target in FuzzTarget.allCases where counts[target] != nil {
            print("\(target.rawValue): replayed \(counts[target]!) inputs, no invariant broken")
        }
        if counts.isEmpty { fail("no inputs; usage: BlogFuzz FILE|FOLDER...") }
    }

    /// The files at `path` with the target each is for.
    static func inputs(at path: String) -> [(FuzzTarget, String)] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { fail("no such file: \(path)") }
        let url = URL(fileURLWithPath: path)
        guard isFolder.boolValue else { return [(target(for: url.deletingLastPathComponent()), path)] }
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { url.appendingPathComponent($0) }
        if !entries.isEmpty, entries.allSatisfy({ isDirectory($0.path) }) {
            // Fuzz/corpus: a target without its folder would go unchecked.
            let names = Set(entries.map(\.lastPathComponent))
            for target in FuzzTarget.allCases where !names.contains(target.rawValue) {
                fail("\(path) has no corpus for the \(target.rawValue) target")
            }
            return entries.flatMap { inputs(at: $0.path) }
        }
        let target = target(for: url)
        return entries.filter { !isDirectory($0.path) }.map { (target, $0.path) }
    }

    static func target(for folder: URL) -> FuzzTarget {
        if case .some(.some(let target)) = environmentTarget { return target }
        let name = folder.standardizedFileURL.lastPathComponent
        guard let target = FuzzTarget(rawValue: name) else {
            fail("\(folder.path) is no target's corpus: name one with BLOGFUZZ_TARGET (\(FuzzTarget.names))")
        }
        return target
    }

    static func isDirectory(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }
}
#endif

#if FUZZING
// SwiftPM links an executable's entry point as `<module>_main`; under
// libFuzzer that entry point hands control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("BlogFuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    if case .some(.none) = environmentTarget { fail("BLOGFUZZ_TARGET names no target (\(FuzzTarget.names))") }
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzOne)
}
#endif
