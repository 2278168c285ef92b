import Foundation
#if canImport(Glibc)
import Glibc
#endif
import BlogModel

/// The photo files of the public folder, `photos/NAME.jpg` and
/// `photos/NAME.t.jpg`: derived from the database's `photos`, as the pages
/// are from the posts, so they are written without an fsync and the
/// start-up check writes any that a crash lost or cut short again
/// (`restore`), and removes those no photo accounts for (`removeStrays`).
package struct PhotoFiles: Sendable {
    package let pages: PublicFolder

    package init(pages: PublicFolder) {
        self.pages = pages
    }

    /// Writes a photo's two files (each whole, by rename). Only a valid
    /// name ever becomes a file name: it cannot leave the photo folder.
    package func write(_ photo: PostPhoto, image: [UInt8], thumbnail: [UInt8]) throws(PageError) {
        guard PostPhoto.isValidName(photo.name) else { return }
        try pages.write(image, file: photo.file, new: true)
        try pages.write(thumbnail, file: photo.thumbnailFile, new: true)
    }

    /// Removes the files of `photos`, where they are.
    package func remove(_ photos: [PostPhoto]) {
        for photo in photos where PostPhoto.isValidName(photo.name) {
            pages.remove(file: photo.file)
            pages.remove(file: photo.thumbnailFile)
        }
    }

    /// Writes the files of `photos` that are missing or not whole again,
    /// from their bytes in the database; returns how many photos needed
    /// it. A photo deleted meanwhile is skipped.
    package func restore(_ photos: [PostPhoto], from storage: any PhotoStorage) throws -> Int {
        var restored = 0
        for photo in photos where PostPhoto.isValidName(photo.name) {
            guard !isWhole(photo.file) || !isWhole(photo.thumbnailFile) else { continue }
            guard let data = try storage.photoData(name: photo.name) else { continue }
            try write(photo, image: data.image, thumbnail: data.thumbnail)
            restored += 1
        }
        return restored
    }

    /// Removes the photo files whose photo is not in `known` (the names the
    /// database had when the caller read them) and, asked again, not in the
    /// database either: one uploaded meanwhile keeps its files. (A photo's
    /// files are written only once its row is stored, and removed after it
    /// is deleted.) Returns how many photos' files went.
    package func removeStrays(known: Set<String>, storage: any PhotoStorage) throws -> Int {
        var strays = Set<String>()
        for file in pages.files(in: PostPhoto.folder) {
            if let name = Self.photoName(ofFile: file), !known.contains(name) { strays.insert(name) }
        }
        var removed = 0
        for name in strays.sorted() where try storage.photoData(name: name) == nil {
            remove([PostPhoto(name: name, width: 1, height: 1, thumbnailWidth: 1, thumbnailHeight: 1)])
            removed += 1
        }
        return removed
    }

    /// The photo a file of the photo folder belongs to (`NAME.jpg`,
    /// `NAME.t.jpg`); nil for any other name, such as a write under way
    /// (hidden), which is never touched.
    package static func photoName(ofFile file: String) -> String? {
        for suffix in [".t.jpg", ".jpg"] where file.hasSuffix(suffix) {
            let name = String(file.dropLast(suffix.count))
            if PostPhoto.isValidName(name) { return name }
        }
        return nil
    }

    /// Whether `bytes` look like a whole JPEG: its start-of-image marker
    /// first and its end-of-image marker last, as every encoder writes.
    package static func isWholeJPEG(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count >= 4 && bytes.starts(with: [0xFF, 0xD8]) && bytes.suffix(2).elementsEqual([0xFF, 0xD9])
    }

    /// Whether the file is there and a whole JPEG: a file a power cut cut
    /// short (written, not synced) ends elsewhere. Reads its first and
    /// last two bytes only.
    package func isWhole(_ file: String) -> Bool {
        let path = pages.folder.appendingPathComponent(file).path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size >= 4 else { return false }
        var head: [UInt8] = [0, 0], tail: [UInt8] = [0, 0]
        guard pread(fd, &head, 2, 0) == 2, pread(fd, &tail, 2, info.st_size - 2) == 2 else { return false }
        return Self.isWholeJPEG(head + tail)
    }
}
