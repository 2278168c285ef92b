import Foundation
import Logging
import BlogPages

/// What the map pages load, put beside the pages at each start: blogd's
/// own `map.js`, and Leaflet from Debian's libjs-leaflet when installed,
/// so that no page loads a script from elsewhere. Without Leaflet a map
/// page is its list of places.
enum MapAssets {
    /// Where Debian's libjs-leaflet keeps it.
    static let leafletSource = "/usr/share/javascript/leaflet"
    /// What a map page loads of it, under `leaflet/` in the public folder.
    static let leafletFiles = ["leaflet.js", "leaflet.css", "images/layers.png", "images/layers-2x.png",
                               "images/marker-icon.png", "images/marker-icon-2x.png", "images/marker-shadow.png"]

    /// Writes `map.js` and copies Leaflet into the public folder, each only
    /// when it differs, through `pages` as every page is written (staged
    /// outside the folder, so no temporary name is ever listed in it);
    /// failures are logged, never fatal (the pages do not need them).
    static func install(into pages: PublicFolder, from source: String = leafletSource, logger: Logger) {
        let files = FileManager.default
        do {
            try pages.writeIfChanged(Array(MapPage.script.utf8), file: "map.js")
        } catch {
            logger.warning("map.js not written", metadata: ["error": "\(error)"])
        }
        guard files.fileExists(atPath: source + "/leaflet.js") else {
            logger.notice("Leaflet not found (apt-get install libjs-leaflet): map pages show their list of places only")
            return
        }
        do {
            try files.createDirectory(at: pages.folder.appendingPathComponent("leaflet/images"),
                                      withIntermediateDirectories: true)
            for name in leafletFiles {
                guard let data = files.contents(atPath: source + "/" + name) else { continue }
                try pages.writeIfChanged(Array(data), file: "leaflet/" + name)
            }
        } catch {
            logger.warning("Leaflet not copied beside the pages", metadata: ["error": "\(error)"])
        }
    }
}
