import Testing

@testable import BlogWire

/// `geopost:NAME:LAT:LON:TITLE:CONTENT`: a coordinate is a plain decimal
/// within range, kept as sent; anything else is `err:ARGS`.
@Suite("Places")
struct PlaceTests {
    private func parse(_ text: String) -> Result<Request, RequestError> {
        do { return .success(try Request(message: Array(text.utf8))) } catch { return .failure(error) }
    }

    @Test(arguments: [("48.1374", "11.5755"), ("-90", "-180"), ("90", "180"), ("0", "0"), ("7", "-0.5"),
                      ("12.1234567890", "100.0000000001"), ("-33.8688", "151.2093")])
    func validPlacesAreKeptAsSent(latitude: String, longitude: String) throws {
        let place = try Place(latitude: latitude, longitude: longitude)
        #expect(place.latitude == latitude && place.longitude == longitude)
        #expect(place.latitudeValue == Double(latitude) && place.longitudeValue == Double(longitude))
    }

    @Test(arguments: ["90.0000001", "-90.5", "91", "1e1", "+1", " 1", "1 ", "nan", "inf", "1.", ".5", "1.12345678901",
                      "", "-", "0x1", "1,5", "1.2.3", "１２", "٣", "0001", "--1", "1-", "12a"])
    func badLatitudesAreRefused(latitude: String) {
        #expect(throws: FieldError.badCoordinate) { try Place(latitude: latitude, longitude: "0") }
    }

    @Test(arguments: ["180.1", "-181", "200", "1e2"])
    func badLongitudesAreRefused(longitude: String) {
        #expect(throws: FieldError.badCoordinate) { try Place(latitude: "0", longitude: longitude) }
    }

    @Test func minusZeroIsZero() throws {
        #expect(try Place(latitude: "-0", longitude: "-0.0").latitude == "0")
        #expect(try Place(latitude: "-0", longitude: "-0.0").longitude == "0.0")
    }

    @Test func geoPostParsesLikeNewPostWithAPlace() throws {
        let request = try parse("geopost:alice:50.08:14.42:On the bridge:text: with colons").get()
        #expect(try request == .geoPost(user: Username("alice"), place: Place(latitude: "50.08", longitude: "14.42"),
                                    title: Title("On the bridge"), content: PostText(framed: "text: with colons")))
        #expect(request.command == "geopost")
        #expect(request.messageBody == "geopost:alice:50.08:14.42:On the bridge:text: with colons")
        #expect(Request.command(of: Array("geopost:x".utf8)) == .geopost)
    }

    @Test func geoPostRefusals() {
        #expect(parse("geopost:alice:91:0:t:c") == .failure(.badArguments(.badCoordinate)))
        #expect(parse("geopost:alice:0:181:t:c") == .failure(.badArguments(.badCoordinate)))
        #expect(parse("geopost:alice:0:0:t") == .failure(.badArguments(.wrongFieldCount)))
        #expect(parse("geopost:alice:0::t:c") == .failure(.badArguments(.badCoordinate)))
        #expect(parse("geopost:alice:0:0: :c") == .failure(.badArguments(.emptyTitle)))
        #expect(parse("geopost:a b:0:0:t:c") == .failure(.badArguments(.usernameCharacters)))
        #expect(RequestError.badArguments(.badCoordinate).reply == .badArguments)
    }
}
