import ArgumentParser
import Foundation

/// Prints one clear line to stderr and exits 1: operators see what is
/// wrong, not a stack trace.
func fail(_ message: String) -> ExitCode {
    // After the log lines that led here.
    BatchedStandardError.shared.flush()
    FileHandle.standardError.write(Data("blogd: \(message)\n".utf8))
    return ExitCode.failure
}
