import BlogWire
import Testing
@testable import BlogServer

/// The request counters' table: every command and reply has one place,
/// and its label is the protocol's own word for it.
@Suite
struct RequestLabelsTests {
    @Test func eachReplyHasItsOwnPlaceAndItsWireWord() {
        for (index, reply) in Reply.allCases.enumerated() {
            #expect(RequestLabels.reply(reply) == index, "\(reply)")
            #expect(RequestLabels.replies[RequestLabels.reply(reply)] == reply.rawValue)
        }
        #expect(RequestLabels.replies.count == Reply.allCases.count)
        #expect(Set(RequestLabels.replies).count == RequestLabels.replies.count)
        // A list of posts counts as its head, not its lines.
        #expect(RequestLabels.replies[RequestLabels.reply(.postsListed)] == "posts:OK")
    }

    @Test func eachCommandHasItsOwnPlaceThenUnknownAndNone() {
        for command in Request.Command.allCases {
            #expect(RequestLabels.commands[RequestLabels.command(command)] == command.rawValue)
        }
        #expect(RequestLabels.commands[RequestLabels.command(nil)] == "unknown")
        #expect(RequestLabels.commands[RequestLabels.noCommand] == "none")
        #expect(Set(RequestLabels.commands).count == RequestLabels.commands.count)
        #expect(RequestLabels.commands == ["register", "login", "newpost", "posts", "editpost", "delpost", "geopost", "unknown", "none"])
    }

    @Test func recordingEveryPairWorksWithoutABackend() {
        // No metrics system bootstrapped: the counters count into nothing,
        // and every pair of the table can be reached.
        let metrics = RequestMetrics()
        for command in Request.Command.allCases.map(Optional.some) + [nil] {
            for reply in Reply.allCases { metrics.record(command, reply, seconds: 0.001) }
        }
        for reply in Reply.allCases { metrics.recordWithoutMessage(reply) }
    }
}
