import Dispatch
import Synchronization

extension BackgroundSender {
    /// Sends every claim, at most `perHost` at once to one host and
    /// `concurrency` in all, blocking this thread until all are done;
    /// returns their outcomes in the claims' order.
    func sendBatch(_ claims: [Job.Claim], of job: Job) -> [Job.Outcome] {
        let lanes = Self.lanes(hosts: claims.map(job.host(of:)), perHost: settings.perHost)
        let limit = max(1, settings.concurrency)
        let handoff = Handoff<[(Int, Job.Outcome)]>()
        let task = Task(executorPreference: OutgoingExecutor.shared) {
            let found = await withTaskGroup(of: [(Int, Job.Outcome)].self) { group in
                var next = 0
                func addLane() {
                    let lane = lanes[next]
                    next += 1
                    group.addTask {
                        var outcomes: [(Int, Job.Outcome)] = []
                        for index in lane { outcomes.append((index, await job.send(claims[index]))) }
                        return outcomes
                    }
                }
                while next < min(limit, lanes.count) { addLane() }
                var all: [(Int, Job.Outcome)] = []
                for await outcomes in group {
                    all += outcomes
                    if next < lanes.count { addLane() }
                }
                return all
            }
            handoff.finish(found)
        }
        // Every claim is in one lane: one outcome each.
        return whileUnderWay(task) { handoff.wait() }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The claims' indexes in lanes, each sent one after another: a
    /// host's claims (`hosts[i]` is claim `i`'s) dealt round in at most
    /// `perHost` lanes, in their order.
    static func lanes(hosts: [String], perHost: Int) -> [[Int]] {
        var byHost: [String: [Int]] = [:]
        for (index, host) in hosts.enumerated() { byHost[host, default: []].append(index) }
        var lanes: [[Int]] = []
        for indexes in byHost.values {
            let count = max(1, min(perHost, indexes.count))
            lanes += (0..<count).map { lane in stride(from: lane, to: indexes.count, by: count).map { indexes[$0] } }
        }
        return lanes
    }
}

/// A value handed from a task to a thread that waits for it.
private final class Handoff<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ found: Value) {
        value.withLock { $0 = found }
        done.signal()
    }

    func wait() -> Value {
        done.wait()
        return value.withLock { $0! }
    }
}
