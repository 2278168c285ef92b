/// HTML escaping for user text.
enum HTML {
    /// Escapes text for element content and quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Escapes text and turns each line break (LF, CRLF or CR) into `<br>`,
    /// so a post stays on one line of the page file.
    static func escapeMultiline(_ text: String) -> String {
        var out = ""
        var afterCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r":
                out += "<br>"
                afterCR = true
                continue
            case "\n":
                if !afterCR { out += "<br>" }
            default:
                out += escape(String(scalar))
            }
            afterCR = false
        }
        return out
    }
}
