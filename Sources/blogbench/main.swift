// Entry point of `blogbench`, the load generator for the blog protocol.
// The command itself lives in Blogbench.swift; `@main` cannot sit in a file
// named main.swift, so this file only starts it.
Blogbench.main()
