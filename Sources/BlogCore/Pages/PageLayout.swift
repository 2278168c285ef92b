/// Which posts go on a user's main page and which on archive pages.
///
/// The main page holds the newest posts; when it reaches `2 * pageSize`,
/// the oldest `pageSize` of them move to a new archive page, which is then
/// never written again. So a new post costs the same however many posts a
/// user has, and archive page `k` always holds posts `(k-1)*P+1 ... k*P`
/// (counting each user's posts from 1, oldest first).
public struct PageLayout: Sendable, Equatable {
    public let pageSize: Int

    public init(pageSize: Int) {
        precondition(pageSize >= 1)
        self.pageSize = pageSize
    }

    /// How many archive pages `total` posts fill.
    public func archiveCount(total: Int) -> Int {
        total >= 2 * pageSize ? total / pageSize - 1 : 0
    }

    /// Splits post ids (any order is kept; `oldestFirst` must be oldest
    /// first) into the main page's ids, newest first, and each archive
    /// page's ids, newest first, archive 1 first.
    public func split<T>(oldestFirst posts: [T]) -> (main: [T], archives: [[T]]) {
        let archived = archiveCount(total: posts.count) * pageSize
        let archives = stride(from: 0, to: archived, by: pageSize).map {
            Array(posts[$0 ..< $0 + pageSize].reversed())
        }
        return (Array(posts[archived...].reversed()), archives)
    }
}
