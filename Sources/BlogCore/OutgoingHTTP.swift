import Dispatch
import Foundation
import Synchronization

/// What the server's own outgoing requests need (Webmention sending,
/// Micropub's photo by URL): a GET and a form POST, each bounded in bytes,
/// time and where it may connect. blogd gives the bounded fetcher; tests
/// may give their own.
public protocol OutgoingHTTP: Sendable {
    /// GETs `url` (following redirects), reading at most `maxBytes` of the body.
    func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer

    /// POSTs `fields` as `application/x-www-form-urlencoded` to `url`,
    /// reading at most `maxBytes` of the answer's body.
    func postForm(_ url: String, fields: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer

    /// POSTs `body` with `headers` (its `Content-Type` among them) to
    /// `url`, not following redirects, reading at most `maxBytes` of the
    /// answer's body (an ActivityPub delivery).
    func post(_ url: String, headers: [(String, String)], body: [UInt8],
              maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer
}

/// A finished outgoing request: the answer of the URL that answered last.
public struct HTTPAnswer: Sendable {
    /// The URL that answered, after redirects.
    public var url: String
    public var status: Int
    /// Header names lowercased; repeated headers joined by ", ".
    public var headers: [String: String]
    public var body: [UInt8]

    public init(url: String, status: Int, headers: [String: String], body: [UInt8]) {
        self.url = url
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why an outgoing request failed, sorted by what to do about it.
public enum OutgoingHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Trying again cannot help: not an http(s) URL, an address outgoing
    /// requests may not reach, a body over the limit.
    case refused(String)
    /// It may work later: the network, a timeout, the other side's trouble.
    case failed(String)

    public var description: String {
        switch self {
        case .refused(let reason), .failed(let reason): reason
        }
    }
}

/// Form encoding (`application/x-www-form-urlencoded`), for the senders.
public enum FormBody {
    /// `fields` as a form body: every byte but the unreserved ones
    /// percent-encoded, so a URL's `&` and `=` stay inside its value.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

extension OutgoingHTTP {
    /// Senders that never POST anything else need not implement it.
    public func post(_ url: String, headers: [(String, String)], body: [UInt8],
                     maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        throw .refused("this client sends no such POST")
    }

    /// `get` for a caller on a thread that may block (a Micropub request's
    /// thread): waits at most `seconds`, then cancels the fetch and fails.
    public func getWaiting(_ url: String, headers: [(String, String)], maxBytes: Int,
                           within seconds: Double) -> Result<HTTPAnswer, OutgoingHTTPError> {
        let box = AnswerBox()
        let task = Task(executorPreference: OutgoingExecutor.shared) {
            do throws(OutgoingHTTPError) {
                box.finish(.success(try await get(url, headers: headers, maxBytes: maxBytes)))
            } catch {
                box.finish(.failure(error))
            }
        }
        guard let result = box.wait(seconds) else {
            task.cancel()
            return .failure(.failed("it took longer than \(Int(seconds)) seconds"))
        }
        return result
    }
}

/// One answer, handed from its task to a waiting thread.
private final class AnswerBox: Sendable {
    private let result = Mutex<Result<HTTPAnswer, OutgoingHTTPError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: Result<HTTPAnswer, OutgoingHTTPError>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait(_ seconds: Double) -> Result<HTTPAnswer, OutgoingHTTPError>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}
