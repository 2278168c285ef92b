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

    public func bodyLimit(path: String) -> Int {
        members.first { $0.handles(path: path) }?.bodyLimit(path: path) ?? 0
    }

    public func bodyLimit(for request: WebRequest) -> Int {
        members.first { $0.handles(path: request.path) }?.bodyLimit(for: request) ?? 0
    }

    public func discardLimit(for request: WebRequest) -> Int {
        members.first { $0.handles(path: request.path) }?.discardLimit(for: request) ?? 0
    }

    public func answer(_ refusal: WebRefusal, to request: WebRequest) -> WebResponse {
        members.first { $0.handles(path: request.path) }?.answer(refusal, to: request) ?? refusal.plainResponse
    }

    public func waitsForPasswordHash(_ request: WebRequest) -> Bool {
        members.first { $0.handles(path: request.path) }?.waitsForPasswordHash(request) ?? false
    }

    public func refusal(beforeReading request: WebRequest) -> WebResponse? {
        members.first { $0.handles(path: request.path) }?.refusal(beforeReading: request)
    }

    public func respond(to request: WebRequest) -> WebResponse {
        guard let member = members.first(where: { $0.handles(path: request.path) }) else {
            return WebResponse(status: .notFound)
        }
        return member.respond(to: request)
    }
}
