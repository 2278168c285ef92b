import ArgumentParser
import BlogCore
import BlogModel
import Foundation
import Logging

// The admin's Webmention commands: the list of received ones, and approval
// or rejection, which rewrites the post's page under the blog's page lock
// (so they work while `blogd serve` runs on the same database).

/// Opens the service as `serve` would and runs `body`; a failure is one
/// line on stderr and exit 1.
private func withService(_ data: DataOptions, _ body: (BlogService) throws -> Void) async throws {
    let settings = try await data.load()
    bootstrapLogging(settings)
    let (store, service) = try openService(settings, logger: Logger(label: "blogd.webmentions"))
    defer { closeService(store, service) }
    do {
        try body(service)
    } catch let exit as ExitCode {
        throw exit
    } catch {
        throw fail("\(error)")
    }
}

struct Webmentions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webmentions",
        abstract: "List, approve or reject received Webmentions.",
        subcommands: [ListWebmentions.self, ApproveWebmention.self, RejectWebmention.self],
        defaultSubcommand: ListWebmentions.self)
}

struct ListWebmentions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Received Webmentions, newest first: id, state, kind, post, source, author.")

    @OptionGroup var data: DataOptions
    @Argument(help: "Only this user's posts' (any case).")
    var name: String?
    @Flag(help: "Only those waiting for approval.")
    var pending = false

    func run() async throws {
        try await withService(data) { service in
            var userID: Int64?
            if let name {
                guard let user = try service.storage.user(named: name) else { throw fail("no such user: \(name)") }
                userID = user.id
            }
            let mentions = try service.storage.webmentions(ofUserID: userID, approved: pending ? false : nil, limit: 1000)
            for mention in mentions {
                let state = mention.approved ? (mention.verifiedAt == nil ? "approved-unverified" : "shown")
                    : (mention.verifiedAt == nil ? "unverified" : "pending")
                let kind = mention.verifiedAt == nil ? "-" : mention.content.kind.rawValue
                print([String(mention.id), state, kind, String(mention.postID), mention.source,
                       mention.content.authorName].joined(separator: "\t"))
            }
        }
    }
}

struct ApproveWebmention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a Webmention: it shows under its post once verified.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The Webmention's id (from `blogd webmentions list`).")
    var id: Int64

    func run() async throws {
        try await withService(data) { service in
            guard try service.approveWebmention(id: id, ofUserID: nil) != nil else { throw fail("no such webmention: \(id)") }
            print("approved webmention \(id)")
        }
    }
}

struct RejectWebmention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reject",
        abstract: "Reject (delete) a Webmention, shown or not; its post's page is rewritten.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The Webmention's id.")
    var id: Int64

    func run() async throws {
        try await withService(data) { service in
            guard try service.removeWebmention(id: id, ofUserID: nil) != nil else { throw fail("no such webmention: \(id)") }
            print("rejected webmention \(id)")
        }
    }
}
