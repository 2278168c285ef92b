import BlogCore
import BlogModel
import BlogPhotos
import BlogWeb
import BlogWire
import HTTPTypes

/// An uploaded photo's way in: the address's upload budget, a place to
/// decode it, `PhotoProcessor` on `PhotoThreads` (bounded, every metadata
/// block removed, at a low CPU priority),
/// then the database through the service, under a random name.
struct PhotoUploads: Sendable {
    let backend: WebClient.Backend

    /// A photo stored, and the place its own EXIF named (used only when
    /// the author asks for it).
    struct Stored {
        var photo: PostPhoto
        var location: Place?
    }

    enum Refusal: Error {
        case overBudget
        case busy
        case photo(PhotoError)
        case notAllowed
        case failed

        var status: HTTPResponse.Status {
            switch self {
            case .overBudget: .tooManyRequests
            case .busy, .failed: .serviceUnavailable
            case .notAllowed: .forbidden
            case .photo(.tooLarge): .contentTooLarge
            case .photo(.unsupportedType), .photo(.typeMismatch): .unsupportedMediaType
            case .photo(let error): error.isClientError ? .unprocessableContent : .internalServerError
            }
        }

        var text: String {
            switch self {
            case .overBudget: "Too many photos from your address: wait a minute."
            case .busy: "Too many photos at once: try again in a moment."
            case .photo(let error): error.description
            case .notAllowed: "You may not post now."
            case .failed: "The photo could not be stored; nothing was changed. Try again in a moment."
            }
        }
    }

    /// Bodies larger than this that may carry a photo spend the upload
    /// budget on their head, before a byte is read (`charge(_:)`); smaller
    /// ones when their photo is taken.
    static let chargedOnHead = 64 * 1024

    /// The refusal of a large upload over its address's budget, given on
    /// the head: its megabytes are never read.
    static func charge(_ request: WebRequest, _ budget: UploadBudget) -> WebResponse? {
        guard request.method == .post,
              request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true,
              Int(request.headers[.contentLength] ?? "") ?? Int.max > chargedOnHead else { return nil }
        guard budget.take(for: request.peerAddress) else {
            let refusal = Refusal.overBudget
            return WebResponse(status: refusal.status, contentType: "text/plain; charset=utf-8", body: Array(refusal.text.utf8),
                               headers: [.retryAfter: "60"])
        }
        return nil
    }

    /// `requestBytes`: the size of the request the photo came in (whether
    /// it was charged on its head).
    func accept(_ part: MultipartForm.Part, requestBytes: Int, as user: Username, session: Session) -> Result<Stored, Refusal> {
        if requestBytes <= Self.chargedOnHead, !backend.uploads.take(for: session.peerAddress) { return .failure(.overBudget) }
        guard backend.uploads.enter() else { return .failure(.busy) }
        let (body, type, limits) = (part.body, part.contentType, backend.photoLimits)
        let processed = PhotoThreads.shared.run {
            Result { () throws(PhotoError) in try PhotoProcessor.process(body, declaredType: type, limits: limits) }
        }
        backend.uploads.leave()
        switch processed {
        case .failure(let error):
            return .failure(.photo(error))
        case .success(let done):
            let photo = PostPhoto(name: PostPhoto.newName(), width: done.width, height: done.height,
                                  thumbnailWidth: done.thumbnailWidth, thumbnailHeight: done.thumbnailHeight)
            switch backend.storePhoto(photo, done.image, done.thumbnail, user, session) {
            case .posted: return .success(Stored(photo: photo, location: done.location))
            case .postRefused: return .failure(.notAllowed)
            default: return .failure(.failed)
            }
        }
    }
}
