import NIOPosix

extension OutgoingFetcher {
    /// A fetcher whose HTTP client runs on `threads` event loop threads of
    /// its own, each set up by `setUp` on itself before any other work
    /// (blogd's deliveries: a lower priority, so a fan-out's connections
    /// and HTTP work take what the requests leave). The fetches' time
    /// limits are kept on these threads too (`FetchDeadline`), so a limit
    /// never runs ahead of an answer the starved loop has yet to read.
    /// The threads live as long as the process.
    public convenience init(settings: FetchSettings, ownLoopThreads threads: Int,
                            onEachLoopThread setUp: @escaping @Sendable () -> Void) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
        for loop in group.makeIterator() { loop.execute(setUp) }
        self.init(settings: settings, eventLoopGroup: group)
    }
}
