import BlogApp
import BlogCore
import BlogModel
import BlogWeb

extension Serve {
    /// The pages read from the database as they are asked for: the tag
    /// pages and their feeds.
    static func readingApplications(store: any BlogStorage, service: BlogService) -> [any WebApplication] {
        [TagPages(storage: store, feeds: service.pageFeeds, head: service.pageHead)]
    }
}
