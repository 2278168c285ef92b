import BlogCore
import BlogModel

/// Bytes that pass for a processed JPEG (its start and end markers), with
/// every byte value in between: what a store must keep exactly.
///
///     try store.storePhoto(testPhoto(), userID: alice.id, image: fakeJPEG(seed: 1),
///                          thumbnail: fakeJPEG(100, seed: 2), at: t0)
public func fakeJPEG(_ count: Int = 600, seed: UInt64 = 1) -> [UInt8] {
    var random = SeededGenerator(seed: seed)
    return [0xFF, 0xD8] + (0..<256).map { UInt8($0) } + random.bytes(max(0, count - 260)) + [0xFF, 0xD9]
}

/// A photo with a fresh name and the sizes given.
public func testPhoto(width: Int = 2048, height: Int = 1536, thumbnailWidth: Int = 480,
                      thumbnailHeight: Int = 360) -> PostPhoto {
    PostPhoto(name: PostPhoto.newName(), width: width, height: height, thumbnailWidth: thumbnailWidth,
              thumbnailHeight: thumbnailHeight)
}
