import BlogServer
import BlogWire
import Testing
import BlogLimits

/// The connection's rules without sockets: each test feeds events and
/// checks the actions, with time passed in by hand.
@Suite("ConnectionMachine: modes and closing")
struct ConnectionMachineTests {
    // MARK: One message per connection (the default)

    @Test func startArmsTheReadTimeout() {
        var machine = makeMachine()
        #expect(machine.start(at: t0) == [.armTimer(t0.adding(seconds: 10))])
        #expect(machine.phase == .open)
        #expect(machine.isReading)
    }

    @Test func oneMessageIsHandledAnsweredThenTheWriteHalfCloses() {
        var machine = started()
        #expect(machine.received(bytes("login:a:b[E];"), at: t0) == [.cancelTimer, .handle(bytes("login:a:b"))])
        #expect(machine.isHandling)
        #expect(machine.answered(.loginRefused, at: t1) == [.send(.loginRefused), .armTimer(t1.adding(seconds: 5))])
        #expect(machine.phase == .flushing)
        #expect(machine.unsentByteCount == Reply.loginRefused.byteCount)
        // Part of the reply out: nothing yet; all of it: close the write half.
        #expect(machine.wrote(4, at: t1) == [])
        #expect(machine.wrote(Reply.loginRefused.byteCount - 4, at: t1) == [.shutdownWrite])
        #expect(machine.phase == .draining)
        #expect(machine.isReading, "a draining connection reads, so the kernel never resets")
        #expect(machine.inputEnded(at: t1) == [.close])
        #expect(machine.phase == .closed)
    }

    @Test func aMessageSplitAtEveryByteIsHandledOnceWhole() {
        let message = bytes("newpost:a:Title:some text[E];")
        var machine = started()
        for byte in message.dropLast() {
            #expect(machine.received([byte], at: t0) == [])
        }
        #expect(machine.received([message.last!], at: t0) == [.cancelTimer, .handle(Array(message.dropLast(4)))])
    }

    @Test func leadingWhitespaceIsSkipped() {
        var machine = started()
        #expect(machine.received(bytes("\r\n  \tlogin:a:b[E];"), at: t0) == [.cancelTimer, .handle(bytes("login:a:b"))])
    }

    @Test func aSecondMessageOnTheSameConnectionIsReadAndDropped() {
        var machine = started()
        #expect(machine.received(bytes("login:a:b[E];register:c:d[E];"), at: t0) == [.cancelTimer, .handle(bytes("login:a:b"))])
        _ = machine.answered(.loginRefused, at: t0)
        #expect(machine.received(bytes("newpost:x:y:z[E];"), at: t0) == [])
        _ = machine.wrote(machine.unsentByteCount, at: t0)
        #expect(machine.received(bytes("more garbage[E];"), at: t0) == [], "draining drops input")
        #expect(machine.phase == .draining)
    }

    /// `printf 'login:a:b[E];' | nc -N`: the message and the FIN arrive
    /// together, and the reply still goes out before the close.
    @Test func messageThenHalfCloseIsAnsweredThenClosed() {
        var machine = started()
        _ = machine.received(bytes("login:a:b[E];"), at: t0)
        #expect(machine.inputEnded(at: t0) == [.pauseReading], "a closed socket stays readable: stop reading it")
        #expect(machine.answered(.loginRefused, at: t0) == [.send(.loginRefused), .armTimer(t0.adding(seconds: 5))])
        #expect(machine.wrote(machine.unsentByteCount, at: t0) == [.shutdownWrite, .close])
    }

    @Test func aMessageCutOffByThePeersCloseGetsErrArgs() {
        var machine = started()
        #expect(machine.received(bytes("login:a:b"), at: t0) == [])
        #expect(machine.inputEnded(at: t0) == [.refuse(.badArguments), .armTimer(t0.adding(seconds: 5)), .pauseReading])
        #expect(machine.wrote(Reply.badArguments.byteCount, at: t0) == [.shutdownWrite, .close])
    }

    @Test func anEmptyHalfCloseClosesWithoutAReply() {
        var machine = started()
        #expect(machine.inputEnded(at: t0) == [.armTimer(t0.adding(seconds: 5)), .shutdownWrite, .close])
    }

    @Test func thePeerThatNeverClosesIsLetGoAfterTheLinger() {
        var machine = started()
        _ = machine.received(bytes("x[E];"), at: t0)
        _ = machine.answered(.unknownCommand, at: t0)
        _ = machine.wrote(machine.unsentByteCount, at: t0)
        #expect(machine.timerFired(at: t0.adding(seconds: 4.9)) == [], "not yet due")
        #expect(machine.timerFired(at: t0.adding(seconds: 5)) == [.close])
    }

    @Test func aResetClosesAtOnceAndALateReplyIsDropped() {
        var machine = started()
        _ = machine.received(bytes("login:a:b[E];"), at: t0)
        #expect(machine.failed() == [.close])
        #expect(machine.answered(.loginRefused, at: t0) == [])
        #expect(machine.received(bytes("x"), at: t0) == [])
        #expect(machine.timerFired(at: t0.adding(seconds: 100)) == [])
    }

    @Test(arguments: [ConnectionMachine.Phase.open, .flushing, .draining])
    func aResetClosesInEveryPhase(_ phase: ConnectionMachine.Phase) {
        var machine = started()
        if phase != .open {
            _ = machine.received(bytes("x[E];"), at: t0)
            _ = machine.answered(.unknownCommand, at: t0)
        }
        if phase == .draining { _ = machine.wrote(machine.unsentByteCount, at: t0) }
        #expect(machine.phase == phase)
        #expect(machine.failed() == [.close])
    }

    // MARK: Keep-alive

    @Test func keepAliveAnswersEachMessageAndRestartsTheIdleTimer() {
        var machine = started(keepAlive: true)
        #expect(machine.received(bytes("login:a:b[E];"), at: t0) == [.cancelTimer, .handle(bytes("login:a:b"))])
        #expect(machine.answered(.loginRefused, at: t1) == [.send(.loginRefused), .armTimer(t1.adding(seconds: 10))])
        #expect(machine.phase == .open)
        _ = machine.wrote(machine.unsentByteCount, at: t1)
        #expect(machine.received(bytes("x[E];"), at: t1) == [.cancelTimer, .handle(bytes("x"))])
    }

    @Test func keepAliveTakesPipelinedMessagesOneAtATimeInOrder() {
        var machine = started(keepAlive: true)
        #expect(machine.received(bytes("a[E];b[E];\nc[E];"), at: t0) == [.cancelTimer, .handle(bytes("a"))])
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .handle(bytes("b"))])
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .handle(bytes("c"))])
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .armTimer(t0.adding(seconds: 10))])
    }

    @Test func keepAliveHalfCloseAnswersEverythingReceivedThenCloses() {
        var machine = started(keepAlive: true)
        _ = machine.received(bytes("a[E];b[E];"), at: t0)
        #expect(machine.inputEnded(at: t0) == [.pauseReading])
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .handle(bytes("b"))])
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .armTimer(t0.adding(seconds: 5))])
        #expect(machine.wrote(machine.unsentByteCount, at: t0) == [.shutdownWrite, .close])
    }

    @Test func keepAliveIdleTimeoutGivesErrTime() {
        var machine = started(keepAlive: true)
        _ = machine.received(bytes("x[E];"), at: t0)
        _ = machine.answered(.unknownCommand, at: t1)
        #expect(machine.timerFired(at: t1.adding(seconds: 9)) == [], "the idle time counts from the last reply")
        #expect(machine.timerFired(at: t1.adding(seconds: 10)) == [.refuse(.timedOut), .armTimer(t1.adding(seconds: 15))])
    }

    @Test(arguments: [Reply.busy, .tooLarge, .timedOut])
    func keepAliveClosesAfterAClosingReply(_ reply: Reply) {
        var machine = started(keepAlive: true)
        _ = machine.received(bytes("login:a:b[E];x[E];"), at: t0)
        #expect(machine.answered(reply, at: t0) == [.send(reply), .armTimer(t0.adding(seconds: 5))])
        #expect(machine.phase == .flushing, "the pipelined message is not taken")
    }

    @Test func theTimerDoesNotRunWhileTheServerWorks() {
        var machine = started(keepAlive: true)
        _ = machine.received(bytes("login:a:b[E];"), at: t0)
        // However long the service takes, the peer is not timed out for it.
        #expect(machine.timerFired(at: t0.adding(seconds: 3600)) == [])
        #expect(machine.answered(.loginRefused, at: t0.adding(seconds: 3600)).contains(.send(.loginRefused)))
    }
}

let t0 = Moment(nanoseconds: 1_000_000_000_000)
let t1 = t0.adding(seconds: 1)

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A machine with the default options but for what `configure` changes.
func makeMachine(keepAlive: Bool = false, _ configure: (inout ConnectionMachine.Options) -> Void = { _ in }) -> ConnectionMachine {
    var options = ConnectionMachine.Options()
    options.keepAlive = keepAlive
    options.readTimeout = 10
    options.lingerTimeout = 5
    options.refusalHold = .none
    configure(&options)
    return ConnectionMachine(options: options)
}

/// A machine already started at `t0`.
func started(keepAlive: Bool = false, _ configure: (inout ConnectionMachine.Options) -> Void = { _ in }) -> ConnectionMachine {
    var machine = makeMachine(keepAlive: keepAlive, configure)
    _ = machine.start(at: t0)
    return machine
}
