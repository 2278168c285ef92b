import ArgumentParser
import BlogWire

/// The `--op` choice: one kind of request, or a weighted mix of them.
enum Operation: String, CaseIterable, ExpressibleByArgument, Sendable {
    case register, login, newpost, mixed, bad
}

/// One kind of request the bench sends, and the reply that counts as OK.
enum RequestKind: String, CaseIterable, Sendable {
    case register, login, newpost, bad

    /// The reply docs/protocol.md promises when everything goes right.
    var expectedReply: Reply {
        switch self {
        case .register: .registered
        case .login: .loggedIn
        case .newpost: .posted
        case .bad: .unknownCommand
        }
    }
}

/// Weights of request kinds, e.g. `login=1,newpost=8,register=1`.
struct Mix: Sendable, CustomStringConvertible {
    /// Kinds with a positive weight, in the order given.
    let entries: [Entry]
    let totalWeight: Int

    struct Entry: Sendable {
        let kind: RequestKind
        let weight: Int
    }

    struct ParseError: Error {
        let message: String
    }

    init(single kind: RequestKind) {
        entries = [Entry(kind: kind, weight: 1)]
        totalWeight = 1
    }

    init(parsing text: String) throws(ParseError) {
        var entries: [Entry] = []
        var seen: Set<RequestKind> = []
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", omittingEmptySubsequences: false)
            let name = String(pair[0].filter { !$0.isWhitespace })
            guard pair.count == 2, let kind = RequestKind(rawValue: name) else {
                throw ParseError(message: "expected kind=weight with kind one of \(RequestKind.allCases.map(\.rawValue).joined(separator: ", ")), got '\(part)'")
            }
            guard let weight = Int(String(pair[1].filter { !$0.isWhitespace })), weight >= 0 else {
                throw ParseError(message: "weight of \(name) must be a whole number >= 0")
            }
            guard seen.insert(kind).inserted else {
                throw ParseError(message: "\(name) given twice")
            }
            if weight > 0 { entries.append(Entry(kind: kind, weight: weight)) }
        }
        guard !entries.isEmpty else { throw ParseError(message: "no kind has a positive weight") }
        self.entries = entries
        totalWeight = entries.reduce(0) { $0 + $1.weight }
    }

    var kinds: Set<RequestKind> { Set(entries.map(\.kind)) }

    /// The kind a random number picks, in proportion to the weights.
    func pick(_ random: UInt64) -> RequestKind {
        guard entries.count > 1 else { return entries[0].kind }
        var roll = Int(random % UInt64(totalWeight))
        for entry in entries {
            if roll < entry.weight { return entry.kind }
            roll -= entry.weight
        }
        return entries[entries.count - 1].kind
    }

    var description: String {
        entries.map { "\($0.kind.rawValue)=\($0.weight)" }.joined(separator: ",")
    }
}
