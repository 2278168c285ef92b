import BlogModel

/// Tells whoever serves the public folder from memory (the page server's
/// cache) that a file was just written or removed, so that a reply sent
/// after a write (`edit:OK`, `del:OK`) is never followed by the old page.
///
///     store.changes.observe { name in web.pageChanged(name) }
public final class PageChanges: Sendable {
    private let handler = Hook<String>()

    public init() {}

    /// Calls `handler` with the name of each file written or removed from
    /// now on (`alice.html`, `alice/17.html`), on the writing thread.
    public func observe(_ handler: @escaping @Sendable (String) -> Void) {
        self.handler.set(handler)
    }

    func changed(_ name: String) {
        handler(name)
    }
}
