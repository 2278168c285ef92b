import BlogSockets
import Testing

@Suite struct DeadlineTests {
    @Test func remainingIsZeroOncePassed() {
        let passed = Deadline(seconds: 0)
        #expect(passed.remainingMilliseconds == 0)
        #expect(passed.hasPassed)
    }

    @Test func remainingIsRoundedUpAndNeverPast() {
        let later = Deadline(seconds: 60)
        #expect(later.remainingMilliseconds > 0)
        #expect(later.remainingMilliseconds <= 60_000)
        #expect(!later.hasPassed)
        #expect(Deadline(seconds: -5).remainingMilliseconds == 0)
        #expect(Deadline(seconds: 0) < later)
    }
}
