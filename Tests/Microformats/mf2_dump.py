"""Parse HTML pages with mf2py (the microformats2 reference parser) and
print what it finds as JSON, for the Swift tests (MicroformatsTests).

    python mf2_dump.py --check            # exit 0 when mf2py imports
    python mf2_dump.py URL FILE [URL FILE ...]
        # one JSON object: {URL: {"items": [...], "rels": {...}}, ...}

URL is where the page would be served: relative links resolve against it
(and against the page's own <base>), as a consumer on the web sees them.
"""
import json
import sys


def main(argv):
    try:
        import mf2py
    except ImportError as error:
        print(f"mf2py missing: {error}", file=sys.stderr)
        return 3
    if argv[1:] == ["--check"]:
        print(mf2py.__version__ if hasattr(mf2py, "__version__") else "ok")
        return 0
    pairs = argv[1:]
    if not pairs or len(pairs) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = {}
    for url, path in zip(pairs[0::2], pairs[1::2]):
        with open(path, "rb") as page:
            parsed = mf2py.parse(doc=page.read(), url=url)
        out[url] = {"items": parsed["items"], "rels": parsed.get("rels", {})}
    json.dump(out, sys.stdout, ensure_ascii=False, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
