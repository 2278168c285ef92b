import BlogPages

/// What pages the service does not write itself (the tag pages and
/// search results, served as they are asked for) share with the ones it
/// writes: the head every page carries and the feeds' addresses and ids.
extension BlogService {
    /// The extra lines of every page's head (`UserPages.head`).
    public var pageHead: [UInt8] { userPages.head }

    /// The feeds' base URL and ids (`Feeds`).
    public var pageFeeds: Feeds { userPages.feeds }
}
