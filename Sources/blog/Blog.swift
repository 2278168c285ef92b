import ArgumentParser

/// `blog`: register, log in and post to a blogd server from the shell.
@main
struct Blog: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blog",
        abstract: "Register, log in and post to a blogd server.",
        discussion: """
            Each request goes on a TCP connection of its own, as the original \
            iPhone app sends them (see docs/protocol.md).

            PASSWORD: taken from the environment variable BLOG_PASSWORD when it \
            is set (for scripts); otherwise typed at the terminal, without echo.

            POSTING: the server accepts a post only from an address that \
            registered or logged in as that user within its login lease (1 hour \
            by default). So `blog post` first logs in, then sends the post: two \
            connections, like the original app. With --no-login it sends only \
            the post, relying on an earlier `blog login` from this machine.

            EXIT CODES:
              0   done
              1   refused: name taken, wrong name or password, not logged in
              2   server error: err:DB, post:ERR, any other err:* reply, or a
                  reply that makes no sense
              3   connection failure: cannot resolve or reach the host,
                  connection refused, timeout, closed without a reply
              64  usage error: bad arguments, a name or title outside the
                  rules, an unreadable file, no password available
            """,
        subcommands: [RegisterCommand.self, LoginCommand.self, PostCommand.self, PostsCommand.self, EditCommand.self,
                      DeleteCommand.self]
    )
}
