/// Several applications on one server, each with its own paths: the first
/// that handles a path answers it.
///
///     let apps = ApplicationSet([webClient, micropub])
public struct ApplicationSet: WebApplication {
    public let members: [any WebApplication]

    public init(_ members: [any WebApplication]) {
        self.members = members
    }

    public func handles(path: String) -> Bool {
        members.contains { $0.handles(path: path) }
    }

    public func handles(head: WebRequestHead) -> Bool {
        members.contains { $0.handles(head: head) }
    }

    public var negotiatesPages: Bool {
        members.contains { $0.negotiatesPages }
    }

    /// The member that answers `request`: the first that takes its head.
    private func member(for request: WebRequest) -> (any WebApplication)? {
        let head = request.head
        return members.first { $0.handles(head: head) }
    }

    public func bodyLimit(path: String) -> Int {
        members.first { $0.handles(path: path) }?.bodyLimit(path: path) ?? 0
    }

    public func bodyLimit(for request: WebRequest) -> Int {
        member(for: request)?.bodyLimit(for: request) ?? 0
    }

    public func discardLimit(for request: WebRequest) -> Int {
        member(for: request)?.discardLimit(for: request) ?? 0
    }

    public func answer(_ refusal: WebRefusal, to request: WebRequest) -> WebResponse {
        member(for: request)?.answer(refusal, to: request) ?? refusal.plainResponse
    }

    public func waitsForPasswordHash(_ request: WebRequest) -> Bool {
        member(for: request)?.waitsForPasswordHash(request) ?? false
    }

    public func refusal(beforeReading request: WebRequest) -> WebResponse? {
        member(for: request)?.refusal(beforeReading: request)
    }

    public func respond(to request: WebRequest) -> WebResponse {
        guard let member = member(for: request) else {
            return WebResponse(status: .notFound)
        }
        return member.respond(to: request)
    }
}
