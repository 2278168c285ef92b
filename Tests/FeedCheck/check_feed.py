#!/usr/bin/env python3
"""Checks Atom feeds written by blogd's AtomFeed with tools that are not ours.

    check_feed.py FILE...

Each FILE is checked three ways:
  1. XML 1.0 well-formedness and the RFC 4287 elements blogd promises, read
     with Python's expat (exact text, no whitespace trimmed);
  2. the RFC 4287 RELAX NG schema (atom.rnc beside this script) with jing;
  3. feedparser, the reader most Python feed tools use: no bozo flag.
If FILE.expected.json exists (FILE without its .xml), the values read back
by 1 and 3 must equal what went into the renderer; see AtomFeedTests.swift.

Exit status: 0 all good, 1 a feed failed, 3 a tool is missing (the message
names the package), 2 bad usage.
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ATOM = "{http://www.w3.org/2005/Atom}"
GEORSS = "{http://www.georss.org/georss}"
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "atom.rnc")
DECLARATION = b'<?xml version="1.0" encoding="utf-8"?>\n'
# RFC 3339, always UTC, always milliseconds: what AtomFeed promises.
TIMESTAMP = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
INSTALL = ("on Debian: apt-get update && apt-get install -y jing python3-feedparser "
           "(or python3 -m pip install feedparser for a python3 not Debian's)")


class Failure(Exception):
    pass


def missing_tools():
    missing = []
    if shutil.which("jing") is None:
        missing.append("jing (RELAX NG validator)")
    try:
        import feedparser  # noqa: F401
    except ImportError:
        missing.append(f"feedparser for {sys.executable}")
    return missing


def millis(timestamp):
    if not TIMESTAMP.match(timestamp or ""):
        raise Failure(f"date {timestamp!r} is not RFC 3339 UTC with milliseconds")
    try:
        moment = datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError as error:
        raise Failure(f"date {timestamp!r}: {error}")
    return round(moment.timestamp() * 1000)


def expect_equal(what, got, wanted):
    if got == wanted:
        return
    if isinstance(got, str) and isinstance(wanted, str) and max(len(got), len(wanted)) > 200:
        # A 64 KB post is no use in a message: show where it goes wrong.
        at = next((i for i, (a, b) in enumerate(zip(got, wanted)) if a != b), min(len(got), len(wanted)))
        raise Failure(f"{what}: differs at character {at} of {len(got)} read back, {len(wanted)} expected: "
                      f"read back ...{got[max(0, at - 40):at + 40]!r}..., expected ...{wanted[max(0, at - 40):at + 40]!r}...")
    raise Failure(f"{what}: read back {got!r}, expected {wanted!r}")


# feedparser takes U+0080 to U+009F in text for a windows-1252 mix-up and
# puts in what windows-1252 has at those bytes (U+0085 becomes an ellipsis).
# XML 1.0 allows these characters and expat reads them back unchanged.
CP1252_MIXUP = {}
for code in range(0x80, 0xA0):
    try:
        CP1252_MIXUP[code] = bytes([code]).decode("cp1252")
    except UnicodeDecodeError:
        pass


def as_feedparser_reads(text):
    # feedparser also trims the text of elements.
    return text.translate(CP1252_MIXUP).strip()


def only(parent, tag, where):
    found = parent.findall(ATOM + tag)
    if len(found) != 1:
        raise Failure(f"{where}: {len(found)} <{tag}> elements, expected exactly 1")
    return found[0]


def links(parent, where):
    by_rel = {}
    for link in parent.findall(ATOM + "link"):
        rel = link.get("rel", "alternate")
        if rel in by_rel:
            raise Failure(f"{where}: two links rel={rel!r}")
        by_rel[rel] = link
    return by_rel


def point(entry, where):
    """The entry's GeoRSS point text, None without one; never two."""
    found = entry.findall(GEORSS + "point")
    if len(found) > 1:
        raise Failure(f"{where}: {len(found)} georss:point elements")
    return found[0].text if found else None


def check_xml(data, expected):
    """Well-formedness and blogd's promises, read exactly (expat)."""
    if not data.startswith(DECLARATION):
        raise Failure(f"the first line is not {DECLARATION!r}")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        raise Failure(f"not well-formed XML 1.0: {error}")
    if root.tag != ATOM + "feed":
        raise Failure(f"the root is {root.tag}, not an Atom feed")
    feed_links = links(root, "feed")
    for rel, media in (("self", "application/atom+xml"), ("alternate", "text/html")):
        if rel not in feed_links or feed_links[rel].get("type") != media:
            raise Failure(f"feed: no link rel={rel} type={media}")
    title = only(root, "title", "feed")
    expect_equal("feed title type", title.get("type"), "text")
    updated = millis(only(root, "updated", "feed").text)

    entries = []
    for index, entry in enumerate(root.findall(ATOM + "entry")):
        where = f"entry {index}"
        entry_title = only(entry, "title", where)
        expect_equal(f"{where} title type", entry_title.get("type"), "text")
        content = only(entry, "content", where)
        expect_equal(f"{where} content type", content.get("type"), "html")
        author = only(entry, "author", where)
        alternate = links(entry, where).get("alternate")
        if alternate is None:
            raise Failure(f"{where}: no link rel=alternate")
        entries.append({
            "id": only(entry, "id", where).text or "",
            "title": entry_title.text or "",
            "author": only(author, "name", f"{where} author").text or "",
            "link": alternate.get("href"),
            "content_html": content.text or "",
            "published_ms": millis(only(entry, "published", where).text),
            "updated_ms": millis(only(entry, "updated", where).text),
            "point": point(entry, where),
        })

    if expected is not None:
        expect_equal("feed id", only(root, "id", "feed").text, expected["id"])
        expect_equal("feed title", title.text or "", expected["title"])
        expect_equal("feed self link", feed_links["self"].get("href"), expected["self"])
        expect_equal("feed alternate link", feed_links["alternate"].get("href"), expected["alternate"])
        expect_equal("feed updated", updated, expected["updated_ms"])
        expect_equal("number of entries", len(entries), len(expected["entries"]))
        for index, (got, wanted) in enumerate(zip(entries, expected["entries"])):
            for key in wanted:
                expect_equal(f"entry {index} {key}", got[key], wanted[key])


def schema_errors(paths):
    """RFC 4287 schema errors by file. One jing run for all files, since
    starting the JVM costs more than validating a feed; but jing stops at
    its first fatal error, so a failed run is redone file by file."""
    def run(paths):
        return subprocess.run(["jing", "-c", SCHEMA, *paths], capture_output=True, text=True)

    if not paths or run(paths).returncode == 0:
        return {path: [] for path in paths}
    errors = {}
    for path in paths:
        result = run([path])
        # Debian's jing warns on stderr about optional jars it lacks: the
        # errors themselves are on stdout.
        errors[path] = [] if result.returncode == 0 else [
            (result.stdout.strip() or result.stderr.strip())]
    return errors


def check_feedparser(data, expected):
    import feedparser

    # Sanitizing and URI resolution would rewrite the HTML (<br> to <br />),
    # and the point is to read back exactly what the renderer put in.
    parsed = feedparser.parse(data, sanitize_html=False, resolve_relative_uris=False)
    if parsed.bozo:
        raise Failure(f"feedparser: bozo: {parsed.bozo_exception!r}")
    if parsed.version != "atom10":
        raise Failure(f"feedparser: read as {parsed.version!r}, not atom10")
    if expected is None:
        return
    # expat above compares exactly; here, what feedparser is known to change.
    expect_equal("feedparser feed id", parsed.feed.get("id"), as_feedparser_reads(expected["id"]))
    expect_equal("feedparser feed title", parsed.feed.get("title"), as_feedparser_reads(expected["title"]))
    expect_equal("feedparser number of entries", len(parsed.entries), len(expected["entries"]))
    for index, (entry, wanted) in enumerate(zip(parsed.entries, expected["entries"])):
        where = f"feedparser entry {index}"
        expect_equal(f"{where} id", entry.get("id"), as_feedparser_reads(wanted["id"]))
        expect_equal(f"{where} title", entry.get("title"), as_feedparser_reads(wanted["title"]))
        expect_equal(f"{where} title type", entry.title_detail.type, "text/plain")
        # The author's name does not go through that windows-1252 mapping.
        expect_equal(f"{where} author", entry.get("author"), wanted["author"].strip())
        expect_equal(f"{where} link", entry.get("link"), wanted["link"])
        expect_equal(f"{where} content type", entry.content[0].type, "text/html")
        expect_equal(f"{where} content", entry.content[0].value, as_feedparser_reads(wanted["content_html"]))
        # feedparser reads a GeoRSS point as GeoJSON: (longitude, latitude).
        where_ = entry.get("where")
        if wanted.get("point") is None:
            if where_:
                raise Failure(f"{where}: a place where none was given: {where_!r}")
        else:
            lat, lon = (float(part) for part in wanted["point"].split())
            if not where_ or where_.get("type") != "Point" or tuple(where_.get("coordinates")) != (lon, lat):
                raise Failure(f"{where}: feedparser read the place as {where_!r}, not ({lon}, {lat})")
        expect_equal(f"{where} published", millis(entry.get("published")), wanted["published_ms"])
        expect_equal(f"{where} updated", millis(entry.get("updated")), wanted["updated_ms"])
        moment = datetime.datetime.fromtimestamp(wanted["published_ms"] // 1000, datetime.timezone.utc)
        expect_equal(f"{where} published_parsed", tuple(entry.published_parsed[:6]), moment.timetuple()[:6])


def read(path):
    with open(path, "rb") as file:
        data = file.read()
    expected = None
    stem = path[:-4] if path.endswith(".xml") else path
    if os.path.exists(stem + ".expected.json"):
        with open(stem + ".expected.json", encoding="utf-8") as file:
            expected = json.load(file)
    return data, expected


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    missing = missing_tools()
    if missing:
        print(f"check_feed.py: missing {', '.join(missing)}; install {INSTALL}", file=sys.stderr)
        return 3
    failures = {}
    documents = {}
    for path in paths:
        try:
            data, expected = read(path)
            check_xml(data, expected)
            documents[path] = (data, expected)
        except (Failure, OSError, ValueError) as failure:
            failures[path] = failure
    schema = schema_errors(list(documents))
    for path, (data, expected) in documents.items():
        try:
            if schema[path]:
                raise Failure("RFC 4287 schema (jing): " + "; ".join(schema[path]))
            check_feedparser(data, expected)
        except Failure as failure:
            failures[path] = failure
    for path in paths:
        if path in failures:
            print(f"{path}: FAIL: {failures[path]}", file=sys.stderr)
        else:
            print(f"{path}: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
