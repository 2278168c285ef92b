import BlogWeb

extension WebServer.Limits {
    /// The default limits, but a step timeout of ten minutes: a test's
    /// connection may wait that long for a loaded machine (two busy cores,
    /// a parallel build) and is never cut off by the 10-second default it
    /// does not test. Tests of the timeout itself set their own.
    public static var patient: Self {
        var limits = Self()
        limits.timeout = .seconds(600)
        return limits
    }
}
