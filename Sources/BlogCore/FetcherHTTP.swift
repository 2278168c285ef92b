import BlogFetch

/// `OutgoingHTTP` on the server's bounded fetcher (`OutgoingFetcher`):
/// its bytes, time, concurrency and address rules hold for every request.
/// A `maxBytes` below the fetcher's own is held to as well (a GET's body
/// past it fails; a POST's answer is cut).
///
///     let http = FetcherHTTP(OutgoingFetcher(settings: FetchSettings(allowPrivateAddresses: false)))
public struct FetcherHTTP: OutgoingHTTP {
    public let fetcher: OutgoingFetcher

    public init(_ fetcher: OutgoingFetcher) {
        self.fetcher = fetcher
    }

    public func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        let accept = headers.first { $0.0.lowercased() == "accept" }?.1 ?? "text/html"
        // A signed GET (ActivityPub) keeps every header: the signature covers them.
        let signed = headers.contains { $0.0.lowercased() == "signature" }
        do {
            let response = signed ? try await fetcher.get(url, headers: headers) : try await fetcher.get(url, accept: accept)
            return try Self.answer(response, maxBytes: maxBytes)
        } catch let error as FetchError {
            throw Self.error(error)
        } catch let error as OutgoingHTTPError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    public func postForm(_ url: String, fields: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        do {
            // An endpoint's answer is only looked at for its status: a long
            // one is cut, never a reason to call an accepted send failed.
            var response = try await fetcher.postForm(url, fields: fields)
            response.body = Array(response.body.prefix(maxBytes))
            return try Self.answer(response, maxBytes: maxBytes)
        } catch let error as FetchError {
            throw Self.error(error)
        } catch let error as OutgoingHTTPError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    public func post(_ url: String, headers: [(String, String)], body: [UInt8],
                     maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        do {
            // Only the answer's status counts: a long one is cut.
            var response = try await fetcher.post(url, headers: headers, body: body)
            response.body = Array(response.body.prefix(maxBytes))
            return try Self.answer(response, maxBytes: maxBytes)
        } catch let error as FetchError {
            throw Self.error(error)
        } catch let error as OutgoingHTTPError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    private static func answer(_ response: FetchedResponse, maxBytes: Int) throws(OutgoingHTTPError) -> HTTPAnswer {
        guard response.body.count <= maxBytes else { throw .refused("the response is over \(maxBytes) bytes") }
        return HTTPAnswer(url: response.url, status: response.status, headers: response.headers, body: response.body)
    }

    /// What cannot change on a retry is refused; the network's troubles may pass.
    static func error(_ error: FetchError) -> OutgoingHTTPError {
        switch error {
        case .unsupportedURL, .forbiddenAddress, .tooLarge, .tooManyRedirects, .badRedirect: .refused(error.description)
        case .unresolvable, .timedOut, .transport: .failed(error.description)
        }
    }
}
