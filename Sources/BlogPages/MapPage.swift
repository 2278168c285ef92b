import BlogWire
import BlogModel

/// A blog's map page, `alice.map.html`: its placed posts as a list (each
/// linked to its page and to OpenStreetMap at its point), which `map.js`
/// turns into a Leaflet map in a browser with JavaScript. The list is the
/// page without it. Written only while the blog has a placed post.
///
///     let page = MapPage.render(user: "alice", posts: placed)
public enum MapPage {
    /// Placed posts a map shows at most, the newest.
    static let limit = 500

    /// `alice.map.html`. Names hold no `.`, so it is no other user's page.
    public static func file(user: String) -> String {
        user + ".map.html"
    }

    /// `blog` names the page after the blog's title, when it has one.
    static func render(user: String, posts: [PostRecord], head extra: [UInt8] = [], blog: BlogIdentity? = nil) -> [UInt8] {
        var list: [UInt8] = Array("<div id=\"map\" class=\"map\"></div>\n<ul class=\"places\">\n".utf8)
        for post in posts {
            guard let place = post.place else { continue }
            list += Array("<li data-lat=\"\(place.latitude)\" data-lon=\"\(place.longitude)\"><a href=\"".utf8)
            HTMLEscape.append(PageRenderer.postFile(user: user, id: post.id), to: &list)
            list += Array("\">".utf8)
            if let photo = post.photos.first { appendThumbnail(photo, to: &list) }
            HTMLEscape.append(post.title, to: &list)
            list += Array("</a> · <a href=\"".utf8)
            HTMLEscape.append(PageRenderer.openStreetMapURL(place), to: &list)
            list += Array("\">\(place.latitude), \(place.longitude)</a></li>\n".utf8)
        }
        list += Array("</ul>".utf8)
        let name = blog?.name ?? user
        return PageRenderer.document(title: "\(name) – places", heading: name, fragments: [list],
                                     nav: [(PageRenderer.mainFile(user: user), blog?.settings.title ?? "\(user)’s blog"),
                                           (IndexPage.fileName, "All blogs")],
                                     head: extra + head)
    }

    /// A post's first photo, small, before its title (in the link the
    /// map's popup shows), with its alt text.
    private static func appendThumbnail(_ photo: PostPhoto, to list: inout [UInt8]) {
        let scale = min(1, Double(thumbnailSide) / Double(max(photo.thumbnailWidth, photo.thumbnailHeight)))
        let width = max(1, Int((Double(photo.thumbnailWidth) * scale).rounded()))
        let height = max(1, Int((Double(photo.thumbnailHeight) * scale).rounded()))
        list += Array("<img src=\"".utf8)
        HTMLEscape.append(photo.thumbnailFile, to: &list)
        list += Array("\" width=\"\(width)\" height=\"\(height)\" alt=\"".utf8)
        HTMLEscape.append(photo.alt, to: &list)
        list += Array("\" loading=\"lazy\"> ".utf8)
    }

    /// The longer side of a map list's thumbnail, in CSS pixels.
    static let thumbnailSide = 96

    /// Leaflet (Debian's libjs-leaflet, copied beside the pages by `serve`)
    /// and blogd's own `map.js`; the tiles come from OpenStreetMap in the
    /// reader's browser.
    private static let head = Array("""
        <link rel="stylesheet" href="leaflet/leaflet.css">
        <script src="leaflet/leaflet.js" defer></script>
        <script src="map.js" defer></script>

        """.utf8)

    /// `map.js`, written beside the pages by `serve`: the list of a map
    /// page as markers on an OpenStreetMap map, fitted to them.
    public static let script = """
        // blogd: the places listed on a blog's map page as a Leaflet map.
        // Without JavaScript, or without Leaflet, the list is the page.
        (function () {
          var element = document.getElementById('map');
          if (!element || typeof L === 'undefined') return;
          var items = document.querySelectorAll('ul.places li[data-lat]');
          if (items.length === 0) return;
          // Shown only now (style.css): without a map the list is the page.
          element.className += ' live';
          var map = L.map(element);
          L.tileLayer('https://tile.openstreetmap.org/{z}/{x}/{y}.png', {
            maxZoom: 19,
            attribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
          }).addTo(map);
          var points = [];
          items.forEach(function (item) {
            var point = [parseFloat(item.dataset.lat), parseFloat(item.dataset.lon)];
            L.marker(point).addTo(map).bindPopup(item.querySelector('a').cloneNode(true));
            points.push(point);
          });
          map.fitBounds(points, { maxZoom: 14, padding: [24, 24] });
        })();

        """
}
