import ArgumentParser

@main
struct Blogd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blogd",
        abstract: "The blog server of the 2009 iPhone blog application.",
        subcommands: [Serve.self, Users.self, Rebuild.self, AddUser.self, DeletePost.self, Suspend.self, Unsuspend.self,
                      DeleteUser.self, Backup.self],
        defaultSubcommand: Serve.self)
}
