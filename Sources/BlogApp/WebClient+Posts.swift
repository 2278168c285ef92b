import BlogCore
import BlogModel
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes

/// Writing, listing, editing and deleting posts.
extension WebClient {
    /// Posts listed on "My posts", as `posts:` lists them over the protocol.
    static let listed = 50

    func home(_ signedIn: SignedIn, draft: AppPages.Draft = .init(), notice: String? = nil, error: String? = nil,
              status: HTTPResponse.Status = .ok) -> WebResponse {
        do {
            let posts = try backend.storage.postHeadings(ofUserID: signedIn.user.id, limit: Self.listed)
            return .page(AppPages.home(signedIn.viewer, posts: posts, draft: draft, notice: notice, error: error,
                                       trashDays: backend.trashDays), status: status)
        } catch {
            return Self.unavailable(signedIn)
        }
    }

    func create(_ signedIn: SignedIn, _ request: WebRequest) -> WebResponse {
        if request.discardedBodyBytes > 0 { return photoTooLarge(signedIn, request) }
        // With a photo the form comes as multipart.
        let form: FormData
        var photo: MultipartForm.Part?
        if let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") {
            guard let multipart = try? MultipartForm(body: request.body, contentType: type) else {
                return home(signedIn, error: "The form was not understood.", status: .badRequest)
            }
            form = FormData(fields: multipart.textFields)
            photo = multipart.files("photo").first
        } else {
            form = FormData(bytes: request.body)
        }
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard !form.isRefused else { return home(signedIn, error: Self.notUTF8, status: .badRequest) }
        let draft = AppPages.Draft(title: form["title"] ?? "", content: form["content"] ?? "",
                                   latitude: form["latitude"] ?? "", longitude: form["longitude"] ?? "",
                                   alt: form["alt"] ?? "", tags: form["tags"] ?? "")
        guard let user = signedIn.username else { return Self.unavailable(signedIn) }
        let categories: [String]
        switch Self.checkedTags(draft.tags) {
        case .failure(let error): return home(signedIn, draft: draft, error: error.text, status: .badRequest)
        case .success(let tags): categories = tags
        }
        guard case .success(let (title, content, typedPlace)) = validated(draft, withPlace: true) else {
            if case .failure(let error) = validated(draft, withPlace: true) {
                return home(signedIn, draft: draft, error: error.text, status: .badRequest)
            }
            return Self.unavailable(signedIn)
        }
        let alt: String
        switch Self.checkedAlt(draft.alt) {
        case .failure(let error): return home(signedIn, draft: draft, error: error.text, status: .badRequest)
        case .success(let checked): alt = checked
        }
        var place = typedPlace
        var photos: [PhotoAttachment] = []
        if let photo {
            let session = Session(peerAddress: request.peerAddress, authenticatedAs: user)
            switch PhotoUploads(backend: backend).accept(photo, requestBytes: request.body.count, as: user, session: session) {
            case .failure(let refusal):
                return home(signedIn, draft: draft, error: refusal.text, status: refusal.status)
            case .success(let stored):
                photos = [PhotoAttachment(name: stored.photo.name, alt: alt)]
                // The photo's own place is published only when asked for.
                if place == nil, form["photo_location"] == "on" { place = stored.location }
            }
        }
        let command: Request = place.map { .geoPost(user: user, place: $0, title: title, content: content) }
            ?? .newPost(user: user, title: title, content: content)
        switch perform(command, extras: PostExtras(photos: photos, categories: categories), as: user, from: request) {
        case .posted: return .redirect("/app/?done=posted")
        case .busy: return home(signedIn, draft: draft, error: Self.busy, status: .tooManyRequests)
        case .postRefused: return home(signedIn, draft: draft, error: "You may not post now.", status: .forbidden)
        default: return home(signedIn, draft: draft, error: Self.failed, status: .serviceUnavailable)
        }
    }

    /// A photo over the limit, read to its end and dropped: the form again
    /// with what was typed (the fields before the photo, as browsers send
    /// them), the limit named.
    func photoTooLarge(_ signedIn: SignedIn, _ request: WebRequest) -> WebResponse {
        let parts = try? MultipartForm(body: request.body, contentType: request.headers[.contentType] ?? "", cutShort: true)
        let form = FormData(fields: parts?.textFields ?? [])
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        let draft = form.isRefused ? AppPages.Draft()
            : AppPages.Draft(title: form["title"] ?? "", content: form["content"] ?? "",
                             latitude: form["latitude"] ?? "", longitude: form["longitude"] ?? "")
        return home(signedIn, draft: draft, error: tooLargePhoto, status: .contentTooLarge)
    }

    func showEdit(_ signedIn: SignedIn, id: Int64) -> WebResponse {
        do {
            guard let post = try backend.storage.posts(ids: [id]).first, post.userID == signedIn.user.id else {
                return .page(AppPages.notFound(signedIn.viewer), status: .notFound)
            }
            return .page(AppPages.edit(signedIn.viewer, id: id, draft: AppPages.Draft(post), error: nil))
        } catch {
            return Self.unavailable(signedIn)
        }
    }

    /// Saves the edit form: title and text; and, when the form has their
    /// fields, the photos (alt texts, removals, a new photo that replaces
    /// them) and the place (both fields empty removes it). A form without
    /// those fields leaves them as they are.
    func edit(_ signedIn: SignedIn, id: Int64, _ request: WebRequest) -> WebResponse {
        let form: FormData
        var photo: MultipartForm.Part?
        if let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") {
            guard let multipart = try? MultipartForm(body: request.body, contentType: type) else {
                return .page(AppPages.edit(signedIn.viewer, id: id, draft: .init(), error: "The form was not understood."),
                             status: .badRequest)
            }
            form = FormData(fields: multipart.textFields)
            photo = multipart.files("photo").first
        } else {
            form = FormData(bytes: request.body)
        }
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        let post: PostRecord
        do {
            guard let found = try backend.storage.posts(ids: [id]).first, found.userID == signedIn.user.id else {
                return .page(AppPages.notFound(signedIn.viewer), status: .notFound)
            }
            post = found
        } catch {
            return Self.unavailable(signedIn)
        }
        var draft = AppPages.Draft(post)
        (draft.title, draft.content, draft.alt) = (form["title"] ?? "", form["content"] ?? "", form["alt"] ?? "")
        let hasPlace = form["latitude"] != nil || form["longitude"] != nil
        if hasPlace { (draft.latitude, draft.longitude) = (form["latitude"] ?? "", form["longitude"] ?? "") }
        if let tags = form["tags"] { draft.tags = tags }
        for index in draft.photos.indices {
            let name = draft.photos[index].name
            if let alt = form["alt-\(name)"] { draft.photos[index].alt = alt }
            if form["remove-\(name)"] == "on" { draft.removed.insert(name) }
        }
        func again(_ error: String, _ status: HTTPResponse.Status) -> WebResponse {
            .page(AppPages.edit(signedIn.viewer, id: id, draft: draft, error: error), status: status)
        }
        guard !form.isRefused else { return again(Self.notUTF8, .badRequest) }
        guard let user = signedIn.username else { return Self.unavailable(signedIn) }
        let title: Title, content: PostText, typedPlace: Place?
        switch validated(draft, withPlace: hasPlace) {
        case .failure(let error): return again(error.text, .badRequest)
        case .success(let fields): (title, content, typedPlace) = fields
        }
        var photos: [PhotoAttachment]?
        if photo != nil || post.photos.contains(where: { form["alt-\($0.name)"] != nil || form["remove-\($0.name)"] != nil }) {
            var kept: [PhotoAttachment] = []
            for shown in draft.photos where !draft.removed.contains(shown.name) {
                switch Self.checkedAlt(shown.alt) {
                case .failure(let error): return again(error.text, .badRequest)
                case .success(let alt): kept.append(PhotoAttachment(name: shown.name, alt: alt))
                }
            }
            photos = kept
        }
        let newAlt: String
        switch Self.checkedAlt(draft.alt) {
        case .failure(let error): return again(error.text, .badRequest)
        case .success(let alt): newAlt = alt
        }
        var place: PlaceEdit = hasPlace ? typedPlace.map(PlaceEdit.set) ?? .remove : .keep
        if let photo {
            let session = Session(peerAddress: request.peerAddress, authenticatedAs: user)
            switch PhotoUploads(backend: backend).accept(photo, requestBytes: request.body.count, as: user, session: session) {
            case .failure(let refusal):
                return again(refusal.text, refusal.status)
            case .success(let stored):
                // A new photo takes the place of the ones the post had.
                photos = [PhotoAttachment(name: stored.photo.name, alt: newAlt)]
                if typedPlace == nil, form["photo_location"] == "on", let location = stored.location { place = .set(location) }
            }
        }
        // The HTML source stays while the text it gave is unchanged: plain
        // text typed here replaces it.
        var categories: [String]?
        if form["tags"] != nil {
            switch Self.checkedTags(draft.tags) {
            case .failure(let error): return again(error.text, .badRequest)
            case .success(let tags): categories = tags
            }
        }
        let extras = PostExtras(photos: photos, contentHTML: content.value == post.content ? post.contentHTML : nil, place: place,
                                categories: categories)
        switch perform(.editPost(user: user, id: id, title: title, content: content), extras: extras, as: user, from: request) {
        case .edited: return .redirect("/app/?done=edited")
        case .editRefused: return .page(AppPages.notFound(signedIn.viewer), status: .notFound)
        case .busy: return again(Self.busy, .tooManyRequests)
        default: return again(Self.failed, .serviceUnavailable)
        }
    }

    func delete(_ signedIn: SignedIn, id: Int64, _ request: WebRequest) -> WebResponse {
        guard CSRF.check(FormData(bytes: request.body)["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard let user = signedIn.username else { return Self.unavailable(signedIn) }
        switch perform(.deletePost(user: user, id: id), as: user, from: request) {
        case .deleted: return .redirect("/app/?done=deleted")
        case .deleteRefused: return .page(AppPages.notFound(signedIn.viewer), status: .notFound)
        case .busy: return home(signedIn, error: Self.busy, status: .tooManyRequests)
        default: return home(signedIn, error: Self.failed, status: .serviceUnavailable)
        }
    }

    /// Carries out `request` as `user`, whom the session proved.
    func perform(_ request: Request, extras: PostExtras = PostExtras(), as user: Username, from web: WebRequest) -> Reply {
        backend.perform(request, extras, Session(peerAddress: web.peerAddress, authenticatedAs: user)).reply
    }

    /// A photo's alt text from a form, by the rule of `PostPhoto.checkedAlt`.
    static func checkedAlt(_ text: String) -> Result<String, FormProblem> {
        do {
            return .success(try PostPhoto.checkedAlt(text))
        } catch .tooLong {
            return .failure(FormProblem("A photo's description is at most \(PostPhoto.maxAltCharacters) characters."))
        } catch {
            return .failure(FormProblem("A photo's description holds control characters."))
        }
    }

    /// The title, text and place of a form, by the protocol's rules, the
    /// text within the configured `max_message_bytes` (as Micropub holds it).
    func validated(_ draft: AppPages.Draft, withPlace: Bool) -> Result<(Title, PostText, Place?), FormProblem> {
        do {
            let title = try Title(draft.title)
            let content = try PostText(draft.content, maxBytes: backend.maxTextBytes)
            var place: Place?
            if withPlace {
                let latitude = draft.latitude.trimmingCharacters(in: .whitespaces)
                let longitude = draft.longitude.trimmingCharacters(in: .whitespaces)
                if !latitude.isEmpty || !longitude.isEmpty {
                    place = try Place(latitude: latitude, longitude: longitude)
                }
            }
            return .success((title, content, place))
        } catch {
            return .failure(FormProblem(Self.explain(error)))
        }
    }

    static let notUTF8 = "The form held text that is not UTF-8, or too many fields; nothing was changed."
    static let busy = "Too much at once from your address: wait a moment and send it again."
    static let failed = "The server could not do it now; nothing was changed. Try again in a moment."

    static func unavailable(_ signedIn: SignedIn?) -> WebResponse {
        .page(AppPages.failure("The database did not answer; try again in a moment.", viewer: signedIn?.viewer),
              status: .serviceUnavailable)
    }
}

/// What was wrong with a form, in words for its author.
struct FormProblem: Error {
    var text: String

    init(_ text: String) {
        self.text = text
    }
}

/// The trash: the list of a user's deleted posts and their restore.
extension WebClient {
    func trash(_ signedIn: SignedIn, notice: String? = nil, error: String? = nil,
               status: HTTPResponse.Status = .ok) -> WebResponse {
        do {
            let posts = try backend.storage.trashedPosts(ofUserID: signedIn.user.id, limit: AppPages.trashListed)
            return .page(AppPages.trash(signedIn.viewer, posts: posts, trashDays: backend.trashDays, notice: notice,
                                        error: error), status: status)
        } catch {
            return Self.unavailable(signedIn)
        }
    }

    func restore(_ signedIn: SignedIn, id: Int64, _ request: WebRequest) -> WebResponse {
        guard CSRF.check(FormData(bytes: request.body)["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard let user = signedIn.username else { return Self.unavailable(signedIn) }
        switch backend.restore(user, id, Session(peerAddress: request.peerAddress, authenticatedAs: user)) {
        case .restored: return .redirect("/app/trash?done=restored")
        case .notInTrash: return .page(AppPages.notFound(signedIn.viewer), status: .notFound)
        case .refused: return trash(signedIn, error: "You may not restore posts now.", status: .forbidden)
        case .failed: return trash(signedIn, error: Self.failed, status: .serviceUnavailable)
        }
    }
}
