#!/bin/sh
# Search p50/p99 on a database of 100,000 posts (1,000 blogs), on SQLite
# and, when PostgreSQL can be had, on PostgreSQL: builds the database
# straight through the tables (Tests/BlogStorageTests/SearchBenchmark.swift)
# and times 200 searches of each kind (a common word, a middling one, a
# rare one, two words; across blogs and on one blog).
#
#   scripts/search-bench.sh            # 100,000 posts
#   BLOGD_SEARCH_POSTS=20000 scripts/search-bench.sh
set -eu
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
BLOGD_SEARCH_BENCH=1 swift test --skip-build --filter 'SearchBenchmark' 2>&1 \
    | grep -E '^(search bench|  )' || true
