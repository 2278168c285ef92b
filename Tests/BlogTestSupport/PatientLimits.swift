import BlogWeb

extension WebServer.Limits {
    /// The default limits, but a step timeout of a day: a test's connection
    /// may wait long for a loaded machine, or for a turn on the suite's
    /// blocking threads (a full run once held one for 13 minutes), and is
    /// never cut off by a timeout it does not test; the server's stop()
    /// ends it. Tests of the timeout itself set their own.
    public static var patient: Self {
        var limits = Self()
        limits.timeout = .seconds(86_400)
        return limits
    }
}
