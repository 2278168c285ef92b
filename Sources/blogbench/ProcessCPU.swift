import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ProcessProbe {
    /// CPU time the process has used so far, user and system, in seconds
    /// (`utime` + `stime` of /proc/PID/stat, in clock ticks).
    func cpuSeconds() throws(ProbeError) -> Double {
        let path = "/proc/\(pid)/stat"
        let stat: String
        do {
            stat = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw isAlive ? .unreadable(path: path, reason: "\(error)") : .noProcess(pid: pid)
        }
        // The command name (field 2) is in parentheses and may hold spaces
        // and parentheses itself: count fields from the last ')'.
        guard let close = stat.lastIndex(of: ")") else { throw .unreadable(path: path, reason: "no ')'") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so utime (14) and stime (15) are 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw .unreadable(path: path, reason: "no utime/stime")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
