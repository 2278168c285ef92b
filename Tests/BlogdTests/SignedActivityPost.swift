import BlogSignatures
import BlogTestSupport
import Foundation

/// POSTs `activity` as `name`'s actor of `fediverse` (its `actor` set),
/// signed with the stub server's one key, to blogd's `path` on port
/// `http`, with curl; the status (0 when curl got none).
func postSigned(_ activity: [String: Any], by name: String, of fediverse: FollowersEndToEndTests.Fediverse, to path: String,
                http: Int, folder: URL) throws -> Int {
    var activity = activity
    let actor = fediverse.actor(name)
    activity["@context"] = "https://www.w3.org/ns/activitystreams"
    activity["actor"] = actor
    let body = try JSONSerialization.data(withJSONObject: activity)
    let url = "http://127.0.0.1:\(http)\(path)"
    let headers = try HTTPSignatureSigner.sign(method: "POST", url: url, body: Array(body), keyID: actor + "#main-key",
                                               privateKey: FollowersEndToEndTests.key.privateKey, now: Date())
    let file = folder.appendingPathComponent("activity-\(UUID().uuidString).json")
    try body.write(to: file)
    let arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                     "-H", "Content-Type: application/activity+json", "--data-binary", "@" + file.path]
        + headers.flatMap { ["-H", "\($0.0): \($0.1)"] } + [url]
    return Int(try tool("curl", arguments).output) ?? 0
}
