import Foundation
import BlogPages

/// A fresh empty folder under the system temporary folder.
public func makeTemporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("blogcore-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `body` with a fresh temporary folder that is removed afterwards.
public func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let url = try makeTemporaryFolder()
    defer { removeTemporaryFolder(url) }
    return try body(url)
}

/// Removes a temporary folder, and the staging folder a `PublicFolder` of it
/// made beside it.
public func removeTemporaryFolder(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.removeItem(atPath: PublicFolder(folder: url).stagingPath)
}

/// The async form of `withTemporaryFolder`.
public func withTemporaryFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = try makeTemporaryFolder()
    defer { removeTemporaryFolder(url) }
    return try await body(url)
}

/// The repository's top folder (this file is Tests/BlogTestSupport/TemporaryFolders.swift).
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()
