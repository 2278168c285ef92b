import BlogTestSupport

/// Whether curl, which the end-to-end tests post with, is missing; when
/// it is, says so in one line, so that a skipped test is never a silent pass.
///
///     if curlIsMissing() { return }
func curlIsMissing() -> Bool {
    if (try? tool("which", ["curl"]).status) == 0 { return false }
    print("skipped: curl is missing")
    return true
}
