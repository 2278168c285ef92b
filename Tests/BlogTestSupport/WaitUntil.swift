import Foundation

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass;
/// returns whether it held. For waiting on an event another process or
/// thread makes: the timeout only bounds a broken test, so make it long.
///
///     #expect(waitUntil(timeout: 60) { server.stderr.contains("stopped") })
@discardableResult
public func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
