@testable import BlogWire
/// The UTF-8 bytes of `text`.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A username known to be valid.
func user(_ name: String) -> Username {
    // Force-try: tests only pass names that follow the rules.
    try! Username(name)
}
