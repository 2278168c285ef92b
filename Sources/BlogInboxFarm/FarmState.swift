import Dispatch
import Foundation
import NIOCore
import NIOHTTP1

/// The farm's shared state: behaviours, records, held requests, open
/// connections. One lock (a condition, so that `wait` wakes on every
/// change); the event loops and the caller's threads both use it.
final class FarmState: @unchecked Sendable {
    private let condition = NSCondition()
    private var behaviours: [FarmBehaviour]
    private var failuresAnswered: [Int]
    private var records: [FarmHostRecord]
    private var sums = FarmTotals()
    private var openRequests: [UInt64: Int] = [:]
    private var nextRequest: UInt64 = 0
    private var held: [Int: [(id: UInt64, channel: any Channel)]] = [:]
    private var channels: [ObjectIdentifier: any Channel] = [:]
    private var checked = 0
    private var firstProblems: [String] = []
    private var knownHosts: [FarmHost] = []
    private let keep: Bool
    private var check: FarmSignatureCheck?
    private let now: @Sendable () -> Date

    init(count: Int, behaviours: [FarmBehaviour], keep: Bool, check: FarmSignatureCheck?,
         now: @escaping @Sendable () -> Date) {
        self.behaviours = behaviours
        failuresAnswered = Array(repeating: 0, count: count)
        records = Array(repeating: FarmHostRecord(), count: count)
        self.keep = keep
        self.check = check
        self.now = now
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    var hosts: [FarmHost] {
        get { locked { knownHosts } }
        set { locked { knownHosts = newValue } }
    }

    func set(_ behaviour: FarmBehaviour, host: Int) { locked { behaviours[host] = behaviour } }

    func set(_ check: FarmSignatureCheck?) { locked { self.check = check } }

    func record(host: Int) -> FarmHostRecord { locked { records[host] } }

    /// For a `wait` condition, which runs with the lock held.
    func recordUnlocked(host: Int) -> FarmHostRecord { records[host] }

    var totals: FarmTotals { locked { sums } }

    var problems: [String] { locked { firstProblems } }

    // MARK: - Connections

    func opened(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        locked { channels[key] = channel }
        channel.closeFuture.whenComplete { _ in self.locked { _ = self.channels.removeValue(forKey: key) } }
    }

    func closeAll() {
        let all = locked { Array(channels.values) }
        for channel in all { try? channel.close().wait() }
    }

    // MARK: - Requests

    /// A POST's head arrived: one more under way at `host`.
    func began(host: Int) -> UInt64 {
        locked {
            nextRequest += 1
            openRequests[nextRequest] = host
            records[host].inFlight += 1
            records[host].peak = max(records[host].peak, records[host].inFlight)
            sums.inFlight += 1
            sums.peak = max(sums.peak, sums.inFlight)
            sums.peakPerHost = max(sums.peakPerHost, records[host].peak)
            return nextRequest
        }
    }

    /// The request is no longer under way (answered, or its connection
    /// closed); a second call changes nothing.
    func ended(_ id: UInt64) {
        locked { endUnlocked(id) }
    }

    private func endUnlocked(_ id: UInt64) {
        guard let host = openRequests.removeValue(forKey: id) else { return }
        records[host].inFlight -= 1
        sums.inFlight -= 1
    }

    /// A POST arrived whole: counted, checked when its turn in the sample
    /// comes, and what to do with it. One to hold is held at once, under
    /// the same lock: a `release` right after the decision finds it.
    func arrived(host: Int, id: UInt64, channel: any Channel, request: FarmRequest) -> FarmDecision {
        let (decision, checkIt) = locked { () -> (FarmDecision, FarmSignatureCheck?) in
            records[host].received += 1
            records[host].byPath[request.path, default: 0] += 1
            if keep { records[host].requests.append(request) }
            sums.received += 1
            if sums.firstArrival == 0 { sums.firstArrival = request.arrived }
            var checkIt: FarmSignatureCheck?
            if let check {
                if checked % check.every == 0 { checkIt = check }
                checked += 1
            }
            let decision = decide(host: host)
            if decision == .hold { held[host, default: []].append((id, channel)) }
            return (decision, checkIt)
        }
        if let check = checkIt {
            // Outside the lock: an RSA check takes tens of microseconds.
            let problem = check.problem(with: request)
            locked {
                if let problem {
                    sums.badSignatures += 1
                    if firstProblems.count < 10 { firstProblems.append(problem) }
                } else {
                    sums.verified += 1
                }
            }
        }
        return decision
    }

    private func decide(host: Int) -> FarmDecision {
        switch behaviours[host] {
        case .accept: return .answer(status: 202, after: 0)
        case .failUntil(let until, let status):
            return now() < until ? .answer(status: status, after: 0) : .answer(status: 202, after: 0)
        case .failFirst(let count, let status):
            guard failuresAnswered[host] < count else { return .answer(status: 202, after: 0) }
            failuresAnswered[host] += 1
            return .answer(status: status, after: 0)
        case .silent: return .silence
        case .slow(let seconds): return .answer(status: 202, after: seconds)
        case .held: return .hold
        case .refuse(let status): return .answer(status: status, after: 0)
        }
    }

    /// The answer went out.
    func answered(host: Int, id: UInt64, status: Int) {
        locked {
            if (200..<300).contains(status) {
                records[host].accepted += 1
                sums.accepted += 1
                sums.lastAccepted = DispatchTime.now().uptimeNanoseconds
            } else {
                records[host].refused += 1
                sums.refused += 1
            }
            endUnlocked(id)
        }
    }

    func release(host: Int) {
        let waiting = locked { held.removeValue(forKey: host) ?? [] }
        for (id, channel) in waiting {
            answered(host: host, id: id, status: 202)
            FarmState.respond(channel, status: 202)
        }
    }

    // MARK: - Waiting

    func wait(timeout: Double, until holds: (FarmTotals) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !holds(sums) {
            if !condition.wait(until: deadline) { return holds(sums) }
        }
        return true
    }

    // MARK: - Answers

    static func respond(_ channel: any Channel, status: Int, body: [UInt8] = [], type: String? = nil) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: String(body.count))
        if let type { headers.add(name: "Content-Type", value: type) }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        if !body.isEmpty { channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
    }
}
