import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `process_*` figures Prometheus clients conventionally export, read
/// from `/proc` when `/metrics` is asked, and `blogd_build_info`.
enum ProcessMetrics {
    /// Prometheus text for this process now (empty where `/proc` is not).
    static func text(version: String = String(BlogdVersion.text.split(separator: " ").last ?? "")) -> String {
        var out = ""
        func add(_ name: String, _ type: String, _ help: String, _ value: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        if let stat = ownStat() {
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            let page = sysconf(Int32(_SC_PAGESIZE))
            add("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.",
                "\(Double(stat.userTicks + stat.systemTicks) / ticks)")
            add("process_resident_memory_bytes", "gauge", "Resident memory size, in bytes.", "\(stat.residentPages * page)")
            add("process_virtual_memory_bytes", "gauge", "Virtual memory size, in bytes.", "\(stat.virtualBytes)")
            if let boot = bootTime() {
                add("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds.",
                    "\(Double(boot) + Double(stat.startTicks) / ticks)")
            }
        }
        if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // Less the one that listed them.
            add("process_open_fds", "gauge", "Open file descriptors.", "\(max(0, fds.count - 1))")
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            add("process_max_fds", "gauge", "The soft limit of open file descriptors.", "\(limit.rlim_cur)")
        }
        out += "# HELP blogd_build_info The blogd running: its version and the Swift it was built with (always 1).\n"
        out += "# TYPE blogd_build_info gauge\n"
        out += "blogd_build_info{version=\"\(version)\",swift_version=\"\(swiftVersion)\"} 1\n"
        return out
    }

    struct Stat {
        var userTicks: Int
        var systemTicks: Int
        var startTicks: Int
        var virtualBytes: Int
        var residentPages: Int
    }

    /// `/proc/self/stat`'s fields after the command name (which may hold
    /// spaces and parentheses, so the last `)` ends it): see proc(5).
    static func ownStat(_ text: String? = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)) -> Stat? {
        guard let text, let end = text.lastIndex(of: ")") else { return nil }
        // Field 3 (state) is the first after the name.
        let fields = text[text.index(after: end)...].split(separator: " ")
        func field(_ number: Int) -> Int? { fields.count > number - 3 ? Int(fields[number - 3]) : nil }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23),
              let resident = field(24) else { return nil }
        return Stat(userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual, residentPages: resident)
    }

    /// When the machine booted, in seconds since the epoch (`btime` in `/proc/stat`).
    static func bootTime() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }) else { return nil }
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
    }

    /// The compiler that built blogd, as far as `#if compiler` can tell.
    static var swiftVersion: String {
        #if compiler(>=6.4)
        return "6.4+"
        #elseif compiler(>=6.3.2)
        return "6.3.2"
        #elseif compiler(>=6.3.1)
        return "6.3.1"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "6.1-"
        #endif
    }
}
