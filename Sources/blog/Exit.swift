import ArgumentParser
import BlogClient

/// The exit codes `blog --help` documents.
enum Exit {
    static let refused = ExitCode(1)
    static let serverError = ExitCode(2)
    static let connectionFailure = ExitCode(3)
    /// ArgumentParser's code for validation errors: EX_USAGE.
    static let usage = ExitCode.validationFailure

    /// Prints `line` on stdout (success) and returns.
    static func succeed(_ line: String) {
        print(line)
    }

    /// Prints `blog: line` on stderr and returns `code` to throw.
    static func fail(_ line: String, _ code: ExitCode) -> ExitCode {
        StandardStreams.error("blog: \(line)\n")
        return code
    }

    /// The failure for a reply other than `.ok`; `refusal` names the refusal.
    static func failure(for reply: BlogReply, refusal: String) -> ExitCode {
        switch reply {
        case .ok: .success
        case .taken, .rejected: fail(refusal, refused)
        case .serverError: fail("server error", serverError)
        case .unknownCommand: fail("the server does not know the command (err:CMD)", serverError)
        case .badArguments: fail("the server refused the fields (err:ARGS)", serverError)
        case .tooLarge: fail("the message is over the server's size limit (err:SIZE)", serverError)
        case .timedOut: fail("the server timed out reading the message (err:TIME)", serverError)
        case .busy: fail("the server is busy, try again later (err:BUSY)", serverError)
        }
    }

    /// The failure for an error of the client library.
    static func failure(for error: BlogClientError, server: ServerOptions) -> ExitCode {
        switch error {
        case .invalidArgument(let problem): return fail(problem.description, usage)
        case .unexpectedReply: return fail(error.description, serverError)
        case .timedOut, .closedWithoutReply:
            return fail("\(server.host):\(server.port): \(error.description)", connectionFailure)
        default: return fail(error.description, connectionFailure)
        }
    }
}
