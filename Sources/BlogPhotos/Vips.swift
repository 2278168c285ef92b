import CVips
import CVipsShim

/// libvips for the whole process: started once, on first use.
enum Vips {
    /// vips_init and its settings (see blogphotos_setup): Swift runs a
    /// static's initializer once, even when several threads ask at once.
    private static let started: Bool = blogphotos_setup() == 0

    static func start() throws(PhotoError) {
        guard started else { throw .unreadable("libvips did not start: " + takeError()) }
    }

    /// Takes vips's error text, leaving the buffer empty.
    ///
    /// The buffer is one for the whole process, not one per thread:
    /// vips_error_buffer_copy reads and clears it under vips's own lock,
    /// so no text is read half-written or reported twice. When two photos
    /// fail at the same moment, one may carry both texts and the other
    /// none; the case thrown never depends on the text, only on which
    /// call failed.
    static func takeError() -> String {
        guard let copy = vips_error_buffer_copy() else { return "no reason given" }
        defer { g_free(copy) }
        let text = String(cString: copy).split(separator: "\n").joined(separator: "; ")
        return text.isEmpty ? "no reason given" : text
    }
}
