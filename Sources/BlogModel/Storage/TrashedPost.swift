import Foundation

/// One line of a user's trash: a deleted post that can still be restored,
/// until `trashedAt` plus the trash's days (`BlogService.Settings.trashDays`).
public struct TrashedPost: Sendable, Equatable {
    public var id: Int64
    public var title: String
    public var createdAt: Date
    public var trashedAt: Date

    public init(id: Int64, title: String, createdAt: Date, trashedAt: Date) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.trashedAt = trashedAt
    }
}
