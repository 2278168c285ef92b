import ArgumentParser
import BlogCore
import BlogModel
import Foundation
import Logging

// The admin's fediverse moderation: a blog's followers, approving or
// refusing a follow, removing a follower, blocks of actors and domains,
// and the "approve followers by hand" setting. Each goes through
// `BlogService` (the rules the web client follows too) and is one commit
// (a block that removes responses also rewrites the pages that showed
// them, under the blog's page lock), so it works while `blogd serve` runs
// on the same database; an Accept or Reject it queues is sent by the
// running server's delivery worker at its next look (within 30 s).

/// Runs `body` through `moderate`, with the followers' error type.
private func withFollowers(_ data: DataOptions,
                           _ body: (BlogService) throws(FollowerModerationError) -> String) async throws {
    try await moderate(data, "followers", body)
}

struct ListFollowers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "followers",
        abstract: "List a blog's followers from the fediverse, newest first: state, actor, host, since.",
        discussion: "One line each, tab-separated; the counts go to standard error.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String
    @Flag(help: "Only the follows waiting for approval.")
    var pending = false
    @Option(help: ArgumentHelp("At most this many (1 to 200).", valueName: "n"))
    var limit = 200
    @Option(help: ArgumentHelp("Skip this many first.", valueName: "n"))
    var offset = 0

    func validate() throws {
        guard (1...BlogService.followersPageLimit).contains(limit) else { throw ValidationError("--limit is 1 to 200") }
        guard offset >= 0 else { throw ValidationError("--offset is 0 or more") }
    }

    func run() async throws {
        try await withFollowers(data) { service throws(FollowerModerationError) in
            let state: Follower.State? = pending ? .pending : nil
            let followers = try service.followers(of: name, state: state, offset: offset, limit: limit)
            let all = try service.followerCount(of: name)
            let waiting = try service.followerCount(of: name, state: .pending)
            FileHandle.standardError.write(Data("\(all - waiting) accepted, \(waiting) pending\n".utf8))
            return followers.map { follower in
                [follower.state.rawValue, follower.actorID, follower.host,
                 ISO8601DateFormatter().string(from: follower.createdAt)].joined(separator: "\t") + "\n"
            }.joined()
        }
    }
}

struct FollowerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follower",
        abstract: "Approve, refuse or remove a follower; see or set whether follows wait for approval.",
        subcommands: [ApproveFollower.self, RefuseFollower.self, RemoveFollower.self, FollowerApproval.self])
}

/// The two arguments every follower command takes.
struct FollowerArguments: ParsableArguments {
    @Argument(help: "The user's name (any case).")
    var name: String
    @Argument(help: "The follower's actor URL, as `blogd followers` lists it.")
    var actor: String

    /// Does `act` to the follower and says so: "`done` follower ACTOR of NAME".
    func answer(_ data: DataOptions, _ done: String,
                _ act: @escaping (BlogService, _ actor: String, _ name: String)
                    throws(FollowerModerationError) -> Follower) async throws {
        try await withFollowers(data) { service throws(FollowerModerationError) in
            let follower = try act(service, actor, name)
            return "\(done) follower \(follower.actorID) of \(name)"
        }
    }
}

struct ApproveFollower: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Accept a follow that waits for approval: its server is sent an Accept.")

    @OptionGroup var data: DataOptions
    @OptionGroup var follower: FollowerArguments

    func run() async throws {
        try await follower.answer(data, "approved") { service, actor, name throws(FollowerModerationError) in
            try service.approveFollower(actor, of: name)
        }
    }
}

struct RefuseFollower: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refuse",
        abstract: "Refuse a follow that waits for approval: it goes, and its server is sent a Reject.")

    @OptionGroup var data: DataOptions
    @OptionGroup var follower: FollowerArguments

    func run() async throws {
        try await follower.answer(data, "refused") { service, actor, name throws(FollowerModerationError) in
            try service.refuseFollower(actor, of: name)
        }
    }
}

struct RemoveFollower: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a follower: it gets no more posts, and its server is sent a Reject of its Follow.")

    @OptionGroup var data: DataOptions
    @OptionGroup var follower: FollowerArguments

    func run() async throws {
        try await follower.answer(data, "removed") { service, actor, name throws(FollowerModerationError) in
            try service.removeFollower(actor, of: name)
        }
    }
}

struct FollowerApproval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approval",
        abstract: "Print, or set (on or off), whether a blog's follows wait for approval by hand.",
        discussion: "Off (the default) accepts every follow at once. Turning it off accepts no waiting follow by itself.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String
    @Argument(help: "on or off; none: print the setting.")
    var value: String?

    func run() async throws {
        let on: Bool?
        switch value?.lowercased() {
        case nil: on = nil
        case "on": on = true
        case "off": on = false
        default: throw fail("give on or off, not \(value!.prefix(20))")
        }
        try await withFollowers(data) { service throws(FollowerModerationError) in
            if let on { try service.setApprovesFollowersByHand(on, of: name) }
            return try service.approvesFollowersByHand(of: name) ? "on" : "off"
        }
    }
}

/// `actor URL` or `domain NAME`, checked by `BlockInput`.
struct BlockArguments: ParsableArguments {
    @Argument(help: "The user's name (any case).")
    var name: String
    @Argument(help: "actor or domain.")
    var kind: String
    @Argument(help: "The actor's URL, or the domain (its subdomains too).")
    var value: String

    func target() throws(FollowerModerationError) -> BlockTarget {
        try BlockInput.target(kind: kind, value: value).get()
    }
}

struct BlockActor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block",
        abstract: "Block an actor or a domain for a blog: its followers and responses go, the inbox refuses it.",
        discussion: "blogd block alice actor https://social.example/users/bob; blogd block alice domain social.example")

    @OptionGroup var data: DataOptions
    @OptionGroup var block: BlockArguments

    func run() async throws {
        try await withFollowers(data) { service throws(FollowerModerationError) in
            let target = try block.target()
            let removed = try service.block(target, of: block.name)
            return "blocked \(target.kind) \(target.value) for \(block.name): "
                + "\(removed.followers) followers and \(removed.responses) responses removed"
        }
    }
}

struct UnblockActor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Lift a block of an actor or a domain (nothing it removed comes back).")

    @OptionGroup var data: DataOptions
    @OptionGroup var block: BlockArguments

    func run() async throws {
        try await withFollowers(data) { service throws(FollowerModerationError) in
            let target = try block.target()
            try service.unblock(target, of: block.name)
            return "unblocked \(target.kind) \(target.value) for \(block.name)"
        }
    }
}

struct ListBlocks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blocks",
        abstract: "List a blog's blocks, newest first: kind, value, since (tab-separated).")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String

    func run() async throws {
        try await withFollowers(data) { service throws(FollowerModerationError) in
            try service.blocks(of: name).map { block in
                [block.target.kind, block.target.value, ISO8601DateFormatter().string(from: block.createdAt)]
                    .joined(separator: "\t") + "\n"
            }.joined()
        }
    }
}
