import BlogSockets
import Foundation

/// A blog's actor key as blogd serves it: `GET /ap/NAME` for
/// `application/activity+json`, its `publicKey`'s id and PEM. Asking
/// makes the key (blogd makes a blog's pair on first need), and the farm
/// checks signatures with what a remote server would fetch.
enum FanoutActorKey {
    static func fetch(blog: String, http: Route, timeout: Double) throws(BenchFailure) -> (id: String, pem: String) {
        let (head, body) = try FanoutHTTP.get("/ap/\(blog)", accept: "application/activity+json", on: http,
                                              timeout: timeout)
        guard head.hasPrefix("HTTP/1.1 200"),
              let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let key = json["publicKey"] as? [String: Any], let id = key["id"] as? String,
              let pem = key["publicKeyPem"] as? String else {
            throw BenchFailure(message: "GET /ap/\(blog): no actor with a key: \(head.prefix(200))")
        }
        return (id, pem)
    }
}
