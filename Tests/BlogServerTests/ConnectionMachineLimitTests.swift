import BlogServer
import BlogWire
import Testing
import BlogLimits

/// The limits a peer runs into, backpressure, and a graceful stop, as the
/// machine decides them.
@Suite("ConnectionMachine: limits, backpressure, stop")
struct ConnectionMachineLimitTests {
    // MARK: err:SIZE

    @Test func aMessageAtTheLimitIsTakenOneByteMoreIsRefused() {
        var fits = started { $0.maxMessageBytes = 16 }
        let body = bytes(String(repeating: "a", count: 16))
        #expect(fits.received(body + bytes("[E];"), at: t0) == [.cancelTimer, .handle(body)])

        var over = started { $0.maxMessageBytes = 16 }
        #expect(over.received(body + bytes("a[E];"), at: t0) == [.refuse(.tooLarge), .armTimer(t0.adding(seconds: 5))])
        #expect(over.phase == .flushing)
    }

    @Test func anEndlessMessageIsRefusedOnceItPassesTheLimitWithoutATerminator() {
        var machine = started { $0.maxMessageBytes = 16 }
        #expect(machine.received(bytes(String(repeating: "a", count: 19)), at: t0) == [], "the terminator may still come")
        #expect(machine.isReading, "so reading must go on")
        #expect(machine.received(bytes("a"), at: t0) == [.refuse(.tooLarge), .armTimer(t0.adding(seconds: 5))])
        // What follows is read and dropped: no second reply, no reset.
        #expect(machine.received(bytes(String(repeating: "b", count: 100_000)), at: t0) == [])
        #expect(machine.wrote(Reply.tooLarge.byteCount, at: t0) == [.shutdownWrite])
        #expect(machine.received(bytes("[E];"), at: t0) == [])
    }

    @Test func oversizedAfterAGoodMessageInKeepAlive() {
        var machine = started(keepAlive: true) { $0.maxMessageBytes = 16 }
        let stream = bytes("x[E];") + bytes(String(repeating: "a", count: 40)) + bytes("[E];y[E];")
        #expect(machine.received(stream, at: t0) == [.cancelTimer, .handle(bytes("x")), .pauseReading])
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .refuse(.tooLarge), .armTimer(t0.adding(seconds: 5)), .resumeReading])
    }

    @Test func readingPausesWhileMoreThanAMessageWaitsBehindTheOneInHand() {
        var machine = started(keepAlive: true) { $0.maxMessageBytes = 16 }
        _ = machine.received(bytes("x[E];"), at: t0)
        #expect(machine.received(bytes(String(repeating: "a", count: 19)), at: t0) == [])
        #expect(machine.received(bytes("a"), at: t0) == [.pauseReading], "a message and a terminator wait: enough")
        #expect(!machine.isReading)
    }

    // MARK: err:TIME

    @Test func aSilentPeerGetsErrTimeThenTheConnectionCloses() {
        var machine = started()
        #expect(machine.timerFired(at: t0.adding(seconds: 9.999)) == [])
        #expect(machine.timerFired(at: t0.adding(seconds: 10)) == [.refuse(.timedOut), .armTimer(t0.adding(seconds: 15))])
        #expect(machine.wrote(Reply.timedOut.byteCount, at: t0.adding(seconds: 10)) == [.shutdownWrite])
        #expect(machine.timerFired(at: t0.adding(seconds: 15)) == [.close])
    }

    @Test func tricklingBytesDoNotRestartTheReadTimeout() {
        var machine = started()
        for second in 1...9 {
            #expect(machine.received(bytes("a"), at: t0.adding(seconds: Double(second))) == [])
        }
        #expect(machine.timerFired(at: t0.adding(seconds: 10)) == [.refuse(.timedOut), .armTimer(t0.adding(seconds: 15))])
    }

    @Test func aStaleTimerFromBeforeARearmDoesNothing() {
        var machine = started(keepAlive: true)
        _ = machine.received(bytes("x[E];"), at: t0)
        _ = machine.answered(.unknownCommand, at: t0.adding(seconds: 8))
        // The loop may still deliver the first moment it was given.
        #expect(machine.timerFired(at: t0.adding(seconds: 10)) == [])
        #expect(machine.timerFired(at: t0.adding(seconds: 18)) == [.refuse(.timedOut), .armTimer(t0.adding(seconds: 23))])
    }

    // MARK: err:BUSY

    @Test func aRejectedConnectionGetsErrBusyAndItsInputIsDropped() {
        var machine = makeMachine()
        #expect(machine.reject(with: .busy, at: t0) == [.refuse(.busy), .armTimer(t0.adding(seconds: 5))])
        #expect(machine.received(bytes("register:a:b[E];"), at: t0) == [], "nothing a rejected peer sends is handled")
        #expect(machine.wrote(Reply.busy.byteCount, at: t0) == [.shutdownWrite])
        #expect(machine.inputEnded(at: t0) == [.close])
    }

    /// A refusal is held back for the busy delay: nothing is read or sent
    /// meanwhile, so a refused client waits instead of coming straight back.
    @Test func errBusyWaitsForTheBusyDelay() {
        var machine = makeMachine { $0.refusalHold = RefusalHold(seconds: 1) }
        #expect(machine.reject(with: .busy, at: t0) == [.armTimer(t0.adding(seconds: 1)), .pauseReading])
        #expect(machine.phase == .refusing(.busy))
        #expect(machine.received(bytes("login:a:b[E];"), at: t0) == [])
        #expect(machine.timerFired(at: t0.adding(seconds: 0.9)) == [])
        #expect(machine.timerFired(at: t0.adding(seconds: 1)) == [.refuse(.busy), .armTimer(t0.adding(seconds: 6)), .resumeReading])
        #expect(machine.wrote(Reply.busy.byteCount, at: t0) == [.shutdownWrite])
    }

    @Test func aBusyAnswerWaitsTooAndAResetEndsTheWait() {
        var machine = started(keepAlive: true) { $0.refusalHold = RefusalHold(seconds: 2) }
        _ = machine.received(bytes("login:a:b[E];x[E];"), at: t0)
        #expect(machine.answered(.busy, at: t1) == [.armTimer(t1.adding(seconds: 2)), .pauseReading])
        #expect(machine.failed() == [.close])
    }

    // MARK: Backpressure

    @Test func aPeerThatDoesNotReadGetsNoMoreAnswersUntilItCatchesUp() {
        // Room for one err:CMD reply (11 bytes) and a bit.
        var machine = started(keepAlive: true) { $0.maxQueuedReplyBytes = 20 }
        _ = machine.received(bytes(String(repeating: "x[E];", count: 5)), at: t0)
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .handle(bytes("x"))])
        // 22 bytes unread: no next message, and the socket is not read either.
        #expect(machine.answered(.unknownCommand, at: t0) == [.send(.unknownCommand), .pauseReading])
        #expect(!machine.isReading)
        #expect(machine.received(bytes("y[E];"), at: t0) == [], "bytes already read wait in the decoder")
        // The peer reads: the next message is taken and reading resumes.
        #expect(machine.wrote(22, at: t0) == [.handle(bytes("x")), .resumeReading])
    }

    @Test func repliesStayInOrderThroughBackpressure() {
        var machine = started(keepAlive: true) { $0.maxQueuedReplyBytes = 12 }
        let replies: [Reply] = [.loginRefused, .unknownCommand, .badArguments, .registered, .nameTaken, .posted]
        _ = machine.received(bytes(replies.indices.map { "m\($0)[E];" }.joined()), at: t0)
        var handled = 1
        var sent: [Reply] = []
        var unwritten = 0
        while sent.count < replies.count {
            if machine.isHandling {
                for action in machine.answered(replies[sent.count], at: t0) {
                    switch action {
                    case .send(let reply):
                        sent.append(reply)
                        unwritten += reply.byteCount
                    case .handle(let body):
                        #expect(body == bytes("m\(handled)"))
                        handled += 1
                    default: break
                    }
                }
            } else {
                for case .handle(let body) in machine.wrote(unwritten, at: t0) {
                    #expect(body == bytes("m\(handled)"))
                    handled += 1
                }
                unwritten = 0
            }
        }
        #expect(sent == replies)
    }

    // MARK: Graceful stop

    @Test func stopClosesAnIdleConnection() {
        var machine = started()
        #expect(machine.stop(at: t1) == [.armTimer(t1.adding(seconds: 0.5)), .shutdownWrite])
        #expect(machine.phase == .draining)
    }

    @Test func stopDropsAHalfMessage() {
        var machine = started()
        _ = machine.received(bytes("register:half"), at: t0)
        #expect(machine.stop(at: t1) == [.armTimer(t1.adding(seconds: 0.5)), .shutdownWrite])
    }

    @Test(arguments: [false, true])
    func stopLetsTheRequestInFlightFinishAndItsReplyLeave(keepAlive: Bool) {
        var machine = started(keepAlive: keepAlive)
        _ = machine.received(bytes("register:a:pw[E];"), at: t0)
        #expect(machine.stop(at: t1) == [])
        #expect(machine.answered(.registered, at: t1) == [.send(.registered), .armTimer(t1.adding(seconds: 0.5))])
        #expect(machine.wrote(Reply.registered.byteCount, at: t1) == [.shutdownWrite])
    }

    @Test func stopAnswersEveryPipelinedMessageAlreadyReceived() {
        var machine = started(keepAlive: true)
        _ = machine.received(bytes("a[E];b[E];"), at: t0)
        #expect(machine.stop(at: t1) == [])
        #expect(machine.answered(.unknownCommand, at: t1) == [.send(.unknownCommand), .handle(bytes("b"))])
        #expect(machine.answered(.unknownCommand, at: t1) == [.send(.unknownCommand), .armTimer(t1.adding(seconds: 0.5))])
        #expect(machine.received(bytes("c[E];"), at: t1) == [], "nothing more is taken")
    }

    @Test func stopGivesAPeerThatDoesNotReadTheLingerOnly() {
        var machine = started(keepAlive: true)
        // Replies past the limit wait unread: no more messages are taken.
        let pipelined = Array(repeating: "m[E];", count: 64 * 1024 / Reply.unknownCommand.byteCount + 2).joined()
        var actions = machine.received(bytes(pipelined), at: t0)
        while case .handle? = actions.last { actions = machine.answered(.unknownCommand, at: t0) }
        #expect(!machine.isReading)
        #expect(machine.stop(at: t1) == [.armTimer(t1.adding(seconds: 0.5))])
        #expect(machine.timerFired(at: t1.adding(seconds: 0.5)) == [.close])
    }
}
