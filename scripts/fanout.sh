#!/usr/bin/env bash
# The fan-out benchmark (docs/benchmarks.md, "ActivityPub fan-out"):
# builds release, then `blogbench fanout` starts an inbox farm of 500
# loopback hosts and a fresh release blogd, gives two blogs 10,000
# followers each (one with shared inboxes, one without), and times one
# post of each delivered while a well-behaved client posts on the blog
# port. Extra arguments go to blogbench fanout (e.g. --json, --hosts 50,
# --set BLOGD_OUTGOING_CONCURRENCY=16).
# Usage: scripts/fanout.sh [blogbench fanout options...]
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product blogd >&2
swift build -c release --product blogbench >&2
echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec .build/release/blogbench fanout --blogd .build/release/blogd "$@"
