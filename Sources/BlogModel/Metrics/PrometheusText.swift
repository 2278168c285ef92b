/// One line of Prometheus's text format: a metric's name, its labels and
/// its value.
public struct Sample: Equatable, Sendable {
    public var name: String
    public var labels: [String: String]
    public var value: Double

    public init(name: String, labels: [String: String], value: Double) {
        self.name = name
        self.labels = labels
        self.value = value
    }
}

/// Reads Prometheus's text exposition format (what `/metrics` serves)
/// into samples; comments, blank lines and lines it cannot read are
/// skipped, so a newer server's extra lines do no harm.
///
///     PrometheusText.samples(in: #"blogd_requests_total{command="login",reply="log:OK"} 3"#)
///     // [Sample(name: "blogd_requests_total", labels: ["command": "login", "reply": "log:OK"], value: 3)]
public enum PrometheusText {
    public static func samples(in text: String) -> [Sample] {
        text.split(separator: "\n").compactMap { sample(in: Substring($0)) }
    }

    /// One sample line, or nil for a comment or a line it cannot read.
    public static func sample(in line: Substring) -> Sample? {
        let line = line.drop { $0 == " " || $0 == "\t" }
        guard let first = line.first, first != "#" else { return nil }
        guard let nameEnd = line.firstIndex(where: { $0 == "{" || $0 == " " }) else { return nil }
        let name = String(line[..<nameEnd])
        var rest = line[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            guard let (parsed, after) = Self.labels(rest.dropFirst()) else { return nil }
            labels = parsed
            rest = after
        }
        // The value, then perhaps a timestamp.
        guard let text = rest.split(separator: " ", omittingEmptySubsequences: true).first,
              let value = Self.value(String(text)) else { return nil }
        return Sample(name: name, labels: labels, value: value)
    }

    /// `key="value",...}` and what follows the brace.
    private static func labels(_ text: Substring) -> ([String: String], Substring)? {
        var labels: [String: String] = [:]
        var rest = text
        while true {
            rest = rest.drop { $0 == "," || $0 == " " }
            if rest.first == "}" { return (labels, rest.dropFirst()) }
            guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"" else { return nil }
            let key = String(rest[..<equals]).trimmingSpaces
            var value = ""
            var index = rest.index(equals, offsetBy: 2)
            var closed = false
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                if character == "\"" {
                    closed = true
                    break
                }
                if character == "\\", index < rest.endIndex {
                    let escaped = rest[index]
                    index = rest.index(after: index)
                    value.append(escaped == "n" ? "\n" : escaped)
                } else {
                    value.append(character)
                }
            }
            guard closed else { return nil }
            labels[key] = value
            rest = rest[index...]
        }
    }

    private static func value(_ text: String) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
