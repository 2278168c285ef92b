import Foundation
import Synchronization
import BlogModel

/// A post as rendered for its pages: its fragment (see `PageRenderer`),
/// and its title for its own page's `<title>`.
package struct RenderedPost: Sendable {
    package var fragment: [UInt8]
    package var title: String
    /// The edit it shows: a rendering of an older edit is stale.
    package var updatedAt: Date?
    /// Its page's description (`PostMeta.summary` of its text).
    package var summary: String = ""
    /// Its first photo's image, for its page's `og:image`.
    package var image: String? = nil
}

extension RenderedPost {
    package init(_ post: PostRecord, user: String) {
        fragment = PageRenderer.fragment(post, user: user)
        title = post.title
        updatedAt = post.updatedAt
        summary = PostMeta.summary(post.content)
        image = post.photos.first?.file
    }

    /// What its own page's head says of it.
    package func meta(id: Int64) -> PostMeta {
        PostMeta(title: title, id: id, description: summary, image: image)
    }
}

/// Rendered posts by post id, so that a post is rendered once and the
/// pages that show it copy its bytes.
///
/// Bounded by bytes: past `capacity`, the posts cached longest ago go
/// first. A rendering is used only for the edit it shows (`PostStub`'s
/// `updatedAt`), so an edit made by another instance is never shown stale.
package final class FragmentCache: Sendable {
    private struct State {
        var posts: [Int64: RenderedPost] = [:]
        /// Ids in the order they were cached; `head` is the oldest.
        var order: [Int64] = []
        var head = 0
        var bytes = 0
    }

    package let capacity: Int
    private let state = Mutex(State())

    package init(capacity: Int = 32 << 20) {
        self.capacity = capacity
    }

    /// Bytes cached (for tests).
    package var byteCount: Int { state.withLock { $0.bytes } }

    /// The cached renderings of `posts` that show their current edit, in
    /// order, under one lock: a page asks for a hundred at once, from
    /// several threads.
    package func rendered(_ posts: [PostStub]) -> [RenderedPost?] {
        state.withLock { state in
            posts.map { stub in state.posts[stub.id].flatMap { $0.updatedAt == stub.updatedAt ? $0 : nil } }
        }
    }

    package func store(_ post: RenderedPost, for id: Int64) {
        state.withLock { state in
            let size = post.fragment.count + post.title.utf8.count + post.summary.utf8.count
            if let old = state.posts.updateValue(post, forKey: id) {
                // An edit replaces the rendering; it keeps its place in line.
                state.bytes += size - old.fragment.count - old.title.utf8.count - old.summary.utf8.count
                return
            }
            state.order.append(id)
            state.bytes += size
            while state.bytes > capacity && state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let removed = state.posts.removeValue(forKey: oldest) {
                    state.bytes -= removed.fragment.count + removed.title.utf8.count + removed.summary.utf8.count
                }
            }
            if state.head > 4096 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    package func remove(_ id: Int64) {
        state.withLock { state in
            if let removed = state.posts.removeValue(forKey: id) {
                state.bytes -= removed.fragment.count + removed.title.utf8.count + removed.summary.utf8.count
            }
        }
    }
}
