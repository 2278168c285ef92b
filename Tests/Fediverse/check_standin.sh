#!/bin/sh
# Runs bovine-herd (herd.py) against the Python stand-in for blogd
# (standin.py): Follow, signed Accept, signed Create of a Note delivered.
# The interpreter must have bovine-herd (see docs/testing-fediverse.md):
# BLOGD_HERD_PYTHON, else BLOGD_PYTHON, else /usr/bin/python3. Without
# bovine-herd it skips with one line, or fails under BLOGD_REQUIRE_PY_TOOLS=1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${BLOGD_HERD_PYTHON:-${BLOGD_PYTHON:-/usr/bin/python3}}
# find_spec, not import: importing bovine creates ./bovine_jsonld_cache.sqlite.
if ! "$python" -c 'import sys, importlib.util as u
sys.exit(not all(u.find_spec(m) for m in ("bovine_herd", "hypercorn")))' 2>/dev/null; then
    if [ "${BLOGD_REQUIRE_PY_TOOLS:-0}" = 1 ]; then
        echo "check_standin: $python lacks bovine-herd (BLOGD_REQUIRE_PY_TOOLS=1)" >&2
        exit 1
    fi
    echo "check_standin: skipped, $python lacks bovine-herd"
    exit 0
fi
exec "$python" "$here/check_standin.py"
