import Foundation

/// How many failed logins for one user from one address are allowed within
/// `window` before logins from there are refused for `lockout`
/// (`LoginThrottle` in memory, `BlogStorage.recordLoginFailure` in the database).
public struct LoginPolicy: Sendable, Equatable {
    public var allowedFailures: Int
    public var window: TimeInterval
    public var lockout: TimeInterval

    public init(allowedFailures: Int = 5, window: TimeInterval = 300, lockout: TimeInterval = 300) {
        self.allowedFailures = allowedFailures
        self.window = window
        self.lockout = lockout
    }

    /// No throttling at all.
    public static let off = LoginPolicy(allowedFailures: .max, window: 0, lockout: 0)
}
