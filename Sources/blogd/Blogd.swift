import ArgumentParser

@main
struct Blogd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blogd",
        abstract: "The blog server of the 2009 iPhone blog application.",
        version: BlogdVersion.text,
        subcommands: [Serve.self, Users.self, Rebuild.self, AddUser.self, DeletePost.self, Suspend.self, Unsuspend.self,
                      DeleteUser.self, Passwd.self, IssueToken.self, ListTokens.self, RevokeToken.self, Stats.self, Backup.self,
                      BlogCommand.self, Webmentions.self,
                      ListFollowers.self, FollowerCommand.self, BlockActor.self, UnblockActor.self, ListBlocks.self],
        defaultSubcommand: Serve.self)
}

/// What `blogd --version` prints.
enum BlogdVersion {
    static let text = "blogd \(number)"
    /// The version alone (NodeInfo's `software.version`).
    static let number = "0.17.0"
}
