import ArgumentParser
import Foundation

/// Prints one clear line to stderr and exits 1: operators see what is
/// wrong, not a stack trace. Under systemd the line carries the journal's
/// error priority (`<3>`), as the log lines carry theirs, so that
/// `journalctl -p err` finds why blogd stopped.
func fail(_ message: String) -> ExitCode {
    // After the log lines that led here.
    BatchedStandardError.shared.flush()
    FileHandle.standardError.write(Data(failureLine(message, environment: ProcessInfo.processInfo.environment).utf8))
    return ExitCode.failure
}

/// The line `fail` writes.
func failureLine(_ message: String, environment: [String: String]) -> String {
    let priority = JournalLogHandler.journalIsStandardError(environment) ? "<3>" : ""
    return "\(priority)blogd: \(message)\n"
}
