import ArgumentParser
import BlogCore
import Foundation
import Logging

// The admin's commands. Each works while `blogd serve` runs on the same
// database: one commit, and the pages it touches written under the
// user's page lock, which the server takes as well.

/// Opens the service the way `serve` would, runs `body`, prints what it
/// returns (nothing when empty) and closes; a refusal is one line on
/// stderr and exit 1.
func moderate<Failure: Error & CustomStringConvertible>(
    _ data: DataOptions, _ label: String, _ body: (BlogService) throws(Failure) -> String
) async throws {
    let settings = try await data.load()
    bootstrapLogging(settings)
    let (store, service) = try openService(settings, logger: Logger(label: "blogd.\(label)"))
    defer { closeService(store, service) }
    let output: String
    do { output = try body(service) } catch { throw fail(error.description) }
    if !output.isEmpty { print(output, terminator: output.hasSuffix("\n") ? "" : "\n") }
}

struct DeletePost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-post",
        abstract: "Delete a post for good, whoever wrote it (no trash; one in the trash is purged): its page answers 410 Gone; pages, feeds and index are rewritten.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The post's id (the number in its URL, NAME/ID.html).")
    var id: Int64

    func run() async throws {
        try await moderate(data, "moderation") { service throws(BlogService.ModerationError) in
            let author = try service.moderateDeletePost(id: id)
            return "deleted post \(id) of \(author)"
        }
    }
}

struct Suspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Suspend a user: no logins, posts, edits or deletions until lifted; the blog stays readable.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String

    func run() async throws {
        try await moderate(data, "moderation") { service throws(BlogService.ModerationError) in
            try service.moderateSuspend(name, true)
            return "suspended \(name)"
        }
    }
}

struct Unsuspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Lift a user's suspension.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String

    func run() async throws {
        try await moderate(data, "moderation") { service throws(BlogService.ModerationError) in
            try service.moderateSuspend(name, false)
            return "lifted the suspension of \(name)"
        }
    }
}

struct DeleteUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-user",
        abstract: "Delete a user for good: their posts (the trash too) and every file of their blog.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String

    func run() async throws {
        try await moderate(data, "moderation") { service throws(BlogService.ModerationError) in
            try service.moderateDeleteUser(name)
            return "deleted \(name) and their blog"
        }
    }
}

struct AddUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adduser",
        abstract: "Create a user and their blog (also when registration is closed).",
        discussion: "The password is read from the first line of standard input, so it appears in no process list: `printf '%s\\n' 'secret' | blogd adduser alice`.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The new user's name.")
    var name: String

    func run() async throws {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw fail("give the password on standard input (one line)")
        }
        try await moderate(data, "moderation") { service throws(BlogService.ModerationError) in
            try service.moderateAddUser(name, password: line)
            return "added \(name)"
        }
    }
}
