import BlogApp
import BlogCore
import BlogModel
import BlogWeb

extension Serve {
    /// The pages read from the database as they are asked for: the tag
    /// pages and their feeds, and search.
    static func readingApplications(_ settings: BlogConfig, store: any BlogStorage,
                                    service: BlogService) -> [any WebApplication] {
        [TagPages(storage: store, feeds: service.pageFeeds, head: service.pageHead, budget: settings.tagPagesBudget),
         SearchPages(storage: store, baseURL: service.pageFeeds.baseURL, head: service.pageHead,
                     budget: settings.searchBudget)]
    }
}
