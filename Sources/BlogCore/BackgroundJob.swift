import Foundation
import BlogModel

/// What a `BackgroundSender` sends: the rows of a queue in the store,
/// claimed a batch at a time under a lease, each sent on its own, and the
/// batch's outcomes settled in one write. The Webmention sender and the
/// ActivityPub delivery are two such jobs; the loop, the wake-ups, the
/// lanes and the stop are the sender's, the same for both.
///
/// A job's storage calls block (they run on the sender's thread); its
/// `send` never does (it waits on the network by suspending).
protocol BackgroundJob: Sendable {
    /// One claimed row, with what its send needs.
    associatedtype Claim: Sendable
    /// What became of one claim; counted by the sender.
    associatedtype Outcome: Hashable & Sendable

    /// Work before each claim (the delivery's fan-out): true when it took
    /// a full batch, so that there may be more at once.
    func prepare() throws(StorageError) -> Bool

    /// Claims at most `limit` rows due by `now`, each hidden from every
    /// other claim (another instance's too) for `lease` seconds.
    func claim(dueBy now: Date, lease: Double, limit: Int) throws(StorageError) -> [Claim]

    /// `claim`, with no row for a host of `skipping` and at most `perHost`
    /// for any other (what the window still has room for). A job whose
    /// queue cannot choose by host claims as `claim` does.
    func claim(dueBy now: Date, lease: Double, limit: Int, skipping: Set<String>,
               perHost: Int) throws(StorageError) -> [Claim]

    /// Where a claim goes: the sends to one host share its lanes.
    func host(of claim: Claim) -> String

    /// Sends one claim. A sender that stops cancels it, and what it
    /// returns then is settled like any other outcome.
    func send(_ claim: Claim) async -> Outcome

    /// Writes what came of a batch in one write (`outcomes[i]` is
    /// `claims[i]`'s; due times count from `now`), and returns the
    /// outcome each claim counts as (a retry given up is a failure).
    func settle(_ claims: [Claim], _ outcomes: [Outcome], at now: Date) throws(StorageError) -> [Outcome]

    /// After a batch is written and counted: metrics, and what follows
    /// from an outcome (an inbox gone).
    func settled(_ claims: [Claim], _ outcomes: [Outcome]) throws(StorageError)
}

extension BackgroundJob {
    func prepare() throws(StorageError) -> Bool { false }
    func claim(dueBy now: Date, lease: Double, limit: Int, skipping: Set<String>,
               perHost: Int) throws(StorageError) -> [Claim] {
        try claim(dueBy: now, lease: lease, limit: limit)
    }
    func settled(_ claims: [Claim], _ outcomes: [Outcome]) throws(StorageError) {}
}
