import ArgumentParser
import Foundation

extension Blogd {
    /// `serve` is the default command, so without this a mistyped command
    /// (`blogd adusr alice`) reads as `serve` with a stray argument and
    /// prints `serve`'s usage. `serve` takes no argument that is not an
    /// option: a first word that is not a command is refused, with the
    /// command it probably meant.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let word = arguments.first, let message = SubcommandCheck.problem(with: word, among: commandNames) {
            FileHandle.standardError.write(Data("blogd: \(message)\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(arguments)
    }

    /// The names `blogd COMMAND` accepts.
    static var commandNames: [String] {
        configuration.subcommands.map { $0._commandName }
    }
}

/// The first word of blogd's command line, checked.
enum SubcommandCheck {
    /// Nil when `word` is an option or a command; else the line that says so.
    static func problem(with word: String, among commands: [String]) -> String? {
        guard !word.hasPrefix("-"), !commands.contains(word), word != "help" else { return nil }
        let nearest = commands.map { (name: $0, distance: ConfigKeys.editDistance(word.lowercased(), $0)) }
            .min { $0.distance < $1.distance }
        let hint = nearest.flatMap { $0.distance <= max(2, $0.name.count / 3) ? " (did you mean '\($0.name)'?)" : nil }
        return "unknown command '\(word)'\(hint ?? ""); `blogd --help` lists them"
    }
}
