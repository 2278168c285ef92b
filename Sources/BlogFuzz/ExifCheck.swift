import BlogPhotos

/// The `exif` target: an EXIF block from an upload (with or without the
/// JPEG APP1 `Exif\0\0` header). Reading never crashes, a position found
/// is on the globe, and the header changes nothing.
func checkExif(_ data: [UInt8]) {
    let place = ExifGPS.place(in: data)
    if let place {
        precondition(abs(place.latitudeValue) <= 90 && abs(place.longitudeValue) <= 180, "\(place) is off the globe")
    }
    let header: [UInt8] = Array("Exif".utf8) + [0, 0]
    if !data.starts(with: header) {
        precondition(ExifGPS.place(in: header + data) == place, "the APP1 header changed the position")
    }
}
