// Entry point of `blogbench`, the load generator for the blog protocol.
// The commands live in Blogbench.swift (the root), Run.swift and Churn.swift;
// `@main` cannot sit in a file named main.swift, so this file only starts it.
Blogbench.main()
