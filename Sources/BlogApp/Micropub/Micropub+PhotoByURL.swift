import BlogCore
import BlogModel
import BlogWire
import Foundation

/// Micropub's photo by URL (section 3.3.1): a `photo` that is not one of
/// this blog's own (its media endpoint's) is fetched through the server's
/// bounded outgoing requests (at most the upload limit in bytes, no
/// private addresses unless the setting allows them), then taken exactly
/// as an upload is: the address's upload budget, the photo threads, every
/// metadata block removed, a new name.
extension Micropub {
    /// The longest a Micropub request waits for one fetched photo, over
    /// the fetcher's own time limit: the request's thread is the only one
    /// held, and not for long.
    static let photoFetchWait: Double = 30

    /// The photos by URL of a new post as attachments, in order: this
    /// blog's own by name, others fetched and stored as uploads. Every alt
    /// text is checked before anything is fetched.
    func photoAttachments(_ photos: [MicropubPhoto], as author: Username,
                          _ session: Session) throws(MicropubError) -> [PhotoAttachment] {
        let alts = try photos.map { photo throws(MicropubError) in try photo.alt.map(Self.checkedAlt) ?? "" }
        var attachments: [PhotoAttachment] = []
        for (photo, alt) in zip(photos, alts) {
            if let name = ownPhoto(photo.url) {
                attachments.append(PhotoAttachment(name: name, alt: alt))
                continue
            }
            guard let fetcher = backend.photoFetcher else {
                throw .invalidRequest("A photo URL must be one this blog's media endpoint gave; send other photos as files.")
            }
            // The address's upload budget is spent before the fetch: a
            // flood of photo URLs costs no more fetches than uploads.
            guard backend.uploads.take(for: session.peerAddress) else {
                throw MicropubError(status: .tooManyRequests, code: "too_many_requests",
                                    description: "Too many photos from your address: wait a minute.")
            }
            let answer = try fetchPhoto(photo.url, with: fetcher)
            let part = MultipartForm.Part(name: "photo", filename: nil, contentType: answer.header("content-type"),
                                          body: answer.body)
            // Charged above: past `chargedOnHead`, `accept` charges no more.
            let stored = try upload(part, requestBytes: Int.max, as: author, session)
            attachments.append(PhotoAttachment(name: stored.name, alt: alt))
        }
        return attachments
    }

    /// The photo at `url`, within the upload limit; a clear
    /// `invalid_request` when it cannot be had.
    private func fetchPhoto(_ url: String, with fetcher: any OutgoingHTTP) throws(MicropubError) -> HTTPAnswer {
        let shown = String(url.prefix(200))
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidRequest("The photo URL \(shown) is not an http or https URL.")
        }
        let result = fetcher.getWaiting(url, headers: [("Accept", "image/*")], maxBytes: backend.photoLimits.maxBytes,
                                        within: Self.photoFetchWait)
        switch result {
        case .failure(let error):
            throw .invalidRequest("The photo at \(shown) could not be fetched: \(error).")
        case .success(let answer) where !(200..<300).contains(answer.status):
            throw .invalidRequest("The photo at \(shown) could not be fetched: its server answered \(answer.status).")
        case .success(let answer):
            return answer
        }
    }
}
