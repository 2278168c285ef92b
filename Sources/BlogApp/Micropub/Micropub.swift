import BlogCore
import BlogModel
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import BlogAuth
import BlogPages

/// Micropub (W3C Recommendation) at `/micropub`, so that existing apps
/// can post: create (form-encoded or JSON, `201` with `Location`),
/// update and delete (`204`), and the `config`, `source` and
/// `syndicate-to` queries, with bearer tokens blogd issues (the settings
/// page, `blogd token NAME`) whose scopes say what each may do.
///
/// Every change goes through the same `perform` as the web client, and so
/// through the blog port's budgets and lanes.
///
///     curl -H "Authorization: Bearer $TOKEN" -d h=entry -d content=Hello \
///          https://blog.example/micropub        # 201, Location: .../alice/7.html
public struct Micropub: WebApplication {
    let backend: WebClient.Backend
    /// Where the public folder is served, ending in `/`: posts' URLs.
    let baseURL: String

    public init(backend: WebClient.Backend, baseURL: String) {
        self.backend = backend
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
    }

    public static let path = "/micropub"
    /// The media endpoint: one photo a request, its URL back.
    public static let mediaPath = "/micropub/media"
    /// A form or JSON body at most (1 MiB, as documented): a post's text,
    /// with room for escapes. More when `max_message_bytes` allows a text
    /// whose escapes need more.
    static let maxBody = 1 << 20
    /// Room in a multipart body for what is not the photo: the token,
    /// names, headers of the parts.
    static let multipartRoom = 64 * 1024

    public func handles(path: String) -> Bool { path == Self.path || path == Self.mediaPath }

    /// A form or JSON body: its text, percent-encoded or escaped, within
    /// the larger of 1 MiB and three times the text limit.
    var formLimit: Int { max(Self.maxBody, 3 * backend.maxTextBytes + 4096) }

    public func bodyLimit(path: String) -> Int {
        max(formLimit, backend.photoLimits.maxBytes + backend.maxTextBytes + Self.multipartRoom)
    }

    /// A form or JSON body is held to `formLimit`; a multipart one may
    /// carry one photo (more go to the media endpoint), the media
    /// endpoint's only the photo.
    public func bodyLimit(for request: WebRequest) -> Int {
        guard request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true else {
            return request.path == Self.mediaPath ? Self.multipartRoom : formLimit
        }
        let photo = backend.photoLimits.maxBytes + Self.multipartRoom
        return request.path == Self.mediaPath ? photo : photo + backend.maxTextBytes
    }

    /// The web server's own refusals as Micropub errors (section 3.8).
    public func answer(_ refusal: WebRefusal, to request: WebRequest) -> WebResponse {
        var response = MicropubError(refusal).response
        if let seconds = refusal.retryAfter { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    /// A large upload over its address's budget is refused unread.
    public func refusal(beforeReading request: WebRequest) -> WebResponse? {
        guard let refused = PhotoUploads.charge(request, backend.uploads) else { return nil }
        var response = MicropubError(status: refused.status, code: "too_many_requests",
                                     description: String(decoding: refused.body, as: UTF8.self)).response
        response.headers[.retryAfter] = refused.headers[.retryAfter]
        return response
    }

    public func respond(to request: WebRequest) -> WebResponse {
        let result: Result<WebResponse, MicropubError>
        switch request.method {
        case .post where request.path == Self.mediaPath: result = Result { () throws(MicropubError) in try media(request) }
        case .get, .head: result = Result { () throws(MicropubError) in try query(request) }
        case .post: result = Result { () throws(MicropubError) in try post(request) }
        default:
            result = .failure(MicropubError(status: .methodNotAllowed, code: "invalid_request", description: "GET or POST."))
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): return error.response
        }
    }

    private func post(_ request: WebRequest) throws(MicropubError) -> WebResponse {
        var files: [MultipartForm.Part] = []
        let action: MicropubAction, user: UserRecord, token: AccessToken
        if let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") {
            let form = try Self.multipart(request.body, type)
            let fields = FormData(fields: form.textFields)
            action = try MicropubParser.form(fields)
            (user, token) = try authorize(request, bodyToken: fields["access_token"])
            files = form.files("photo")
        } else if MicropubParser.isJSON(request.headers[.contentType]) {
            // JSON carries its token in the header only: checked before the
            // body is parsed, so a stranger's megabyte of JSON costs one
            // token lookup, not a parse.
            (user, token) = try authorize(request, bodyToken: nil)
            action = try MicropubParser.parse(body: request.body, contentType: request.headers[.contentType]).0
        } else {
            let bodyToken: String?
            (action, bodyToken) = try MicropubParser.parse(body: request.body, contentType: request.headers[.contentType])
            (user, token) = try authorize(request, bodyToken: bodyToken)
        }
        switch action {
        case .create(let entry):
            try require(.create, token)
            if !files.isEmpty { try require(.media, token) }
            return try create(entry, files: files, user, request)
        case .update(let url, let update):
            try require(.update, token)
            return try self.update(url, update, user, request)
        case .delete(let url):
            try require(.delete, token)
            let id = try stored(try postID(url, of: user), of: user).id
            switch perform(.deletePost(user: try username(user), id: id), user, request) {
            case .deleted: return WebResponse(status: .noContent)
            case .deleteRefused: throw .invalidRequest("No such post of yours.")
            case let reply: throw failure(reply)
            }
        case .undelete(let url):
            // A deleted post waits in the trash for `trash_days`.
            try require(.delete, token)
            let id = try postID(url, of: user)
            let author = try username(user)
            switch backend.restore(author, id, Session(peerAddress: request.peerAddress, authenticatedAs: author)) {
            case .restored: return WebResponse(status: .noContent)
            case .notInTrash: throw .invalidRequest("No deleted post of yours at that URL is in the trash.")
            case .refused: throw MicropubError(status: .forbidden, code: "forbidden", description: "You may not post now.")
            case .failed: throw .unavailable
            }
        }
    }

    private func create(_ entry: MicropubEntry, files: [MultipartForm.Part], _ user: UserRecord,
                        _ request: WebRequest) throws(MicropubError) -> WebResponse {
        let content = entry.content ?? ""
        let name = entry.name.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 } ?? Self.title(from: content)
        guard let name else { throw .invalidRequest("A post needs a name or content.") }
        let (title, text) = try checked(title: name, content: content)
        let html = try entry.contentHTML.map(Self.checkedHTML)
        var place: Place?
        if let location = entry.location {
            do {
                place = try Place(latitude: Self.trimmed(location.latitude), longitude: Self.trimmed(location.longitude))
            } catch {
                throw .invalidRequest(WebClient.explain(error))
            }
        }
        let author = try username(user)
        let session = Session(peerAddress: request.peerAddress, authenticatedAs: author)
        guard entry.photos.count + files.count <= Self.maxPhotos else {
            throw .invalidRequest("At most \(Self.maxPhotos) photos a post.")
        }
        guard entry.photoAlts.count <= entry.photos.count + files.count else {
            throw .invalidRequest("More mp-photo-alt values than photos.")
        }
        // Every alt text is checked before a file costs a decode.
        let alts = try entry.photoAlts.map(Self.checkedAlt)
        // This blog's own photos by name; others fetched (Micropub+PhotoByURL).
        var photos = try photoAttachments(entry.photos, as: author, session)
        for file in files {
            photos.append(PhotoAttachment(name: try upload(file, requestBytes: request.body.count, as: author, session).name))
        }
        for (index, alt) in alts.enumerated() where photos[index].alt.isEmpty { photos[index].alt = alt }
        let command: Request = place.map { .geoPost(user: author, place: $0, title: title, content: text) }
            ?? .newPost(user: author, title: title, content: text)
        let categories = try Self.checkedCategories(entry.categories)
        let outcome = backend.perform(command, PostExtras(photos: photos, contentHTML: html, categories: categories), session)
        guard outcome.reply == .posted, let id = outcome.postID else { throw failure(outcome.reply) }
        return WebResponse(status: .created, headers: [.location: url(of: user.name, id), .cacheControl: "no-store"])
    }

    private func update(_ url: String, _ update: MicropubUpdate, _ user: UserRecord,
                        _ request: WebRequest) throws(MicropubError) -> WebResponse {
        let id = try postID(url, of: user)
        let post = try stored(id, of: user)
        var title: String? = post.title
        var content = post.content
        var html = post.contentHTML
        if let values = update.replace["name"] { title = values.first }
        if let values = update.replace["content"] {
            content = values.first ?? ""
            html = update.contentHTML
        }
        if update.removeProperties.contains("name") { title = nil }
        if update.removeProperties.contains("content") || update.removeValues["content"]?.contains(content) == true {
            (content, html) = ("", nil)
        }
        guard let name = title ?? Self.title(from: content) else { throw .invalidRequest("A post needs a name or content.") }
        let photos = try editedPhotos(post, update)
        let place = try editedPlace(update)
        let (newTitle, newContent) = try checked(title: name, content: content)
        let extras = PostExtras(photos: photos, contentHTML: try html.map(Self.checkedHTML), place: place,
                                categories: try editedCategories(post, update))
        let unchanged = newTitle.value == post.title && newContent.value == post.content && extras.contentHTML == post.contentHTML
            && (extras.categories == nil || extras.categories == post.categories)
            && (photos == nil || photos == post.photos.map { PhotoAttachment(name: $0.name, alt: $0.alt) })
            && (place == .keep || place == (post.place.map(PlaceEdit.set) ?? .remove))
        guard !unchanged else { return WebResponse(status: .noContent) }
        let author = try username(user)
        let edit = Request.editPost(user: author, id: id, title: newTitle, content: newContent)
        switch backend.perform(edit, extras, Session(peerAddress: request.peerAddress, authenticatedAs: author)).reply {
        case .edited: return WebResponse(status: .noContent)
        case .editRefused: throw .invalidRequest("No such post of yours, or a photo that cannot go on it.")
        case let reply: throw failure(reply)
        }
    }

    /// The photos an update leaves the post with (nil when it names none):
    /// `delete` of the property or of some URLs, `replace`, then `add`.
    private func editedPhotos(_ post: PostRecord, _ update: MicropubUpdate) throws(MicropubError) -> [PhotoAttachment]? {
        let removed = update.removeValues["photo"]
        guard update.removeProperties.contains("photo") || removed != nil || update.replacePhotos != nil
                || !update.addPhotos.isEmpty else { return nil }
        var photos = post.photos.map { PhotoAttachment(name: $0.name, alt: $0.alt) }
        if update.removeProperties.contains("photo") { photos = [] }
        if let removed {
            let names = Set(removed.compactMap(ownPhoto))
            photos.removeAll { names.contains($0.name) }
        }
        if let replaced = update.replacePhotos { photos = try attachments(replaced) }
        photos += try attachments(update.addPhotos)
        guard photos.count <= Self.maxPhotos, Set(photos.map(\.name)).count == photos.count else {
            throw .invalidRequest("At most \(Self.maxPhotos) photos a post, each once.")
        }
        return photos
    }

    /// What an update does to the post's place.
    private func editedPlace(_ update: MicropubUpdate) throws(MicropubError) -> PlaceEdit {
        if let location = update.location {
            do {
                return .set(try Place(latitude: Self.trimmed(location.latitude), longitude: Self.trimmed(location.longitude)))
            } catch {
                throw .invalidRequest(WebClient.explain(error))
            }
        }
        return update.removeProperties.contains("location") ? .remove : .keep
    }

    /// Photos by URL as attachments: each must be this blog's own (its
    /// media endpoint's), as blogd fetches nothing from elsewhere, and its
    /// alt text within the rule.
    private func attachments(_ photos: [MicropubPhoto]) throws(MicropubError) -> [PhotoAttachment] {
        var attachments: [PhotoAttachment] = []
        for photo in photos {
            guard let name = ownPhoto(photo.url) else {
                throw .invalidRequest("A photo URL must be one this blog's media endpoint gave; send other photos as files.")
            }
            attachments.append(PhotoAttachment(name: name, alt: try photo.alt.map(Self.checkedAlt) ?? ""))
        }
        return attachments
    }

    private func query(_ request: WebRequest) throws(MicropubError) -> WebResponse {
        _ = try authorize(request, bodyToken: nil)
        let form = FormData(query: request.query)
        switch form["q"] {
        case "config":
            return .json(["q": ["config", "source", "syndicate-to", "category"], "syndicate-to": [Any](),
                          "media-endpoint": String(baseURL.dropLast()) + Self.mediaPath])
        case "syndicate-to":
            return .json(["syndicate-to": [Any]()])
        case "category":
            let (user, _) = try authorize(request, bodyToken: nil)
            return .json(["categories": try categories(of: user, filter: form["filter"] ?? "")])
        case "source":
            let (user, _) = try authorize(request, bodyToken: nil)
            guard let url = form["url"] else { throw .invalidRequest("q=source needs the post's url.") }
            let post = try stored(try postID(url, of: user), of: user)
            return .json(source(post, of: user, only: Set(form.all("properties"))))
        case nil:
            throw .invalidRequest("Ask q=config, q=source, q=syndicate-to or q=category.")
        case let other?:
            throw .invalidRequest("Unknown query \"\(other.prefix(40))\".")
        }
    }

    /// A post as mf2 JSON; only the `only` properties when some are named.
    private func source(_ post: PostRecord, of user: UserRecord, only: Set<String>) -> [String: Any] {
        var properties: [String: Any] = [
            "name": [post.title],
            // As sent: HTML as {"html": …} (section 3.7.2), else the text.
            "content": [post.contentHTML.map { ["html": $0] as Any } ?? post.content],
            "published": [post.createdAt.formatted(.iso8601)],
            "url": [url(of: user.name, post.id)],
        ]
        if let place = post.place { properties["location"] = ["geo:\(place.latitude),\(place.longitude)"] }
        // Every tag: the text's hashtags and those given beside it.
        let tags = post.tags
        if !tags.isEmpty { properties["category"] = tags }
        if let updated = post.updatedAt { properties["updated"] = [updated.formatted(.iso8601)] }
        if !post.photos.isEmpty {
            properties["photo"] = post.photos.map { photo -> Any in
                photo.alt.isEmpty ? baseURL + photo.file : ["value": baseURL + photo.file, "alt": photo.alt]
            }
        }
        guard only.isEmpty else { return ["properties": properties.filter { only.contains($0.key) }] }
        return ["type": ["h-entry"], "properties": properties]
    }

    // MARK: - Photos

    static let maxPhotos = 4

    /// The media endpoint: a multipart `file`, stored; `201` with its URL.
    private func media(_ request: WebRequest) throws(MicropubError) -> WebResponse {
        let form = try Self.multipart(request.body, request.headers[.contentType] ?? "")
        let (user, token) = try authorize(request, bodyToken: form.field("access_token"))
        try require(.media, token)
        guard let file = form.files("file").first else { throw .invalidRequest("Send the photo as the multipart part \"file\".") }
        let author = try username(user)
        let photo = try upload(file, requestBytes: request.body.count, as: author,
                               Session(peerAddress: request.peerAddress, authenticatedAs: author))
        return WebResponse(status: .created, headers: [.location: baseURL + photo.file, .cacheControl: "no-store"])
    }

    func upload(_ file: MultipartForm.Part, requestBytes: Int, as user: Username,
                        _ session: Session) throws(MicropubError) -> PostPhoto {
        switch PhotoUploads(backend: backend).accept(file, requestBytes: requestBytes, as: user, session: session) {
        case .success(let stored): return stored.photo
        case .failure(let refusal):
            let code = switch refusal.status {
            case .tooManyRequests: "too_many_requests"
            case .serviceUnavailable: "temporarily_unavailable"
            case .forbidden: "forbidden"
            default: "invalid_request"
            }
            throw MicropubError(status: refusal.status, code: code, description: refusal.text)
        }
    }

    /// The name of one of this blog's photos from its URL.
    func ownPhoto(_ url: String) -> String? {
        let prefix = baseURL + "photos/"
        guard url.hasPrefix(prefix), url.hasSuffix(".jpg") else { return nil }
        let name = String(url.dropFirst(prefix.count).dropLast(4))
        return PostPhoto.isValidName(name) ? name : nil
    }

    static func multipart(_ body: [UInt8], _ type: String) throws(MicropubError) -> MultipartForm {
        do {
            return try MultipartForm(body: body, contentType: type)
        } catch {
            throw .invalidRequest("The multipart body was not understood.")
        }
    }

    // MARK: - Tokens

    /// The token's user, from the `Authorization` header or the form's
    /// `access_token`, never both (805).
    private func authorize(_ request: WebRequest, bodyToken: String?) throws(MicropubError) -> (UserRecord, AccessToken) {
        let header = request.headers[.authorization].flatMap(Self.bearer)
        if request.headers[.authorization] != nil, header == nil { throw .notBearer }
        if header != nil, bodyToken != nil { throw .invalidRequest("Send the token once: in the header or the body.") }
        guard let secret = header ?? bodyToken, !secret.isEmpty else { throw .unauthorized }
        do {
            guard let found = try backend.tokens.verify(secret, kind: .bearer) else { throw MicropubError.forbidden }
            return found
        } catch let error as MicropubError {
            throw error
        } catch {
            throw .unavailable
        }
    }

    private func require(_ scope: AccessTokens.Scope, _ token: AccessToken) throws(MicropubError) {
        guard token.allows(scope) else { throw .insufficientScope(scope.rawValue) }
    }

    static func bearer(_ field: String) -> String? {
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Posts

    private func perform(_ request: Request, _ user: UserRecord, _ web: WebRequest) -> Reply {
        guard let author = try? Username(user.name) else { return .databaseError }
        return backend.perform(request, PostExtras(), Session(peerAddress: web.peerAddress, authenticatedAs: author)).reply
    }

    private func username(_ user: UserRecord) throws(MicropubError) -> Username {
        guard let name = try? Username(user.name) else { throw .unavailable }
        return name
    }

    private func stored(_ id: Int64, of user: UserRecord) throws(MicropubError) -> PostRecord {
        let found: PostRecord?
        do {
            found = try backend.storage.posts(ids: [id]).first
        } catch {
            throw .unavailable
        }
        guard let found else { throw .invalidRequest("No such post.") }
        guard found.userID == user.id else { throw .notYours }
        return found
    }

    func url(of user: String, _ id: Int64) -> String {
        baseURL + PageRenderer.postFile(user: user, id: id)
    }

    /// The id of the post at `url` (`.../NAME/ID.html`), which must be the
    /// user's: a post of another user's blog is `403 forbidden`.
    private func postID(_ url: String, of user: UserRecord) throws(MicropubError) -> Int64 {
        let path = url.split(separator: "?").first.map(String.init) ?? url
        let parts = path.split(separator: "/")
        guard parts.count >= 2, let last = parts.last, last.hasSuffix(".html"),
              let id = Int64(last.dropLast(5)), id > 0
        else { throw .invalidRequest("That is not the URL of a post.") }
        guard parts[parts.count - 2].lowercased() == user.name.lowercased() else { throw .notYours }
        return id
    }

    private func failure(_ reply: Reply) -> MicropubError {
        switch reply {
        case .busy: .busy
        case .postRefused, .editRefused, .deleteRefused:
            MicropubError(status: .forbidden, code: "forbidden", description: "You may not post now.")
        default: .unavailable
        }
    }

    /// A title and text by the protocol's rules, the text within the
    /// configured `max_message_bytes`, as the web client holds it: the
    /// same on create and on update.
    func checked(title: String, content: String) throws(MicropubError) -> (Title, PostText) {
        do {
            return (try Title(title), try PostText(content, maxBytes: backend.maxTextBytes))
        } catch {
            throw .invalidRequest(WebClient.explain(error))
        }
    }

    /// HTML content within the text's limit, without control characters
    /// (tabs and line breaks are kept).
    static func checkedHTML(_ html: String) throws(MicropubError) -> String {
        do {
            _ = try FieldRules.content(html)
        } catch {
            throw .invalidRequest("content.html holds control characters.")
        }
        guard html.utf8.count <= Frame.defaultMaxMessageBytes else {
            throw .invalidRequest("content.html is longer than \(Frame.defaultMaxMessageBytes / 1024) KiB.")
        }
        return html
    }

    /// A photo's alt text by the rule of `PostPhoto.checkedAlt`.
    static func checkedAlt(_ text: String) throws(MicropubError) -> String {
        do {
            return try PostPhoto.checkedAlt(text)
        } catch .tooLong {
            throw .invalidRequest("A photo's alt text is at most \(PostPhoto.maxAltCharacters) characters.")
        } catch {
            throw .invalidRequest("A photo's alt text holds control characters.")
        }
    }

    /// A title for a post sent without a `name` (a note): its first line,
    /// cut at a word near 60 characters.
    static func title(from content: String) -> String? {
        guard let line = content.split(whereSeparator: \.isNewline).first(where: { !$0.allSatisfy(\.isWhitespace) }) else {
            return nil
        }
        // Cut by code points, as the title rule counts them (an emoji of a
        // family is one character of seven code points).
        let text = line.trimmingCharacters(in: .whitespaces)
        guard text.unicodeScalars.count > 60 else { return text }
        var cut = ""
        for character in text {
            guard cut.unicodeScalars.count + character.unicodeScalars.count <= 60 else { break }
            cut.append(character)
        }
        let word = cut.lastIndex(of: " ").map { String(cut[..<$0]) } ?? cut
        return word + "…"
    }

    /// A coordinate with at most the 10 decimals blogd keeps.
    static func trimmed(_ coordinate: String) -> String {
        let text = coordinate.trimmingCharacters(in: .whitespaces)
        guard let dot = text.firstIndex(of: ".") else { return text }
        let decimals = text[text.index(after: dot)...]
        return decimals.count > 10 ? String(text[...dot] + decimals.prefix(10)) : text
    }
}
