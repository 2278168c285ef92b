#!/usr/bin/env bash
# What a post costs depending on the page it lands on: one client posting
# 200-byte posts for SECONDS to a user whose pages already hold posts made
# before measuring (--prefill), on a fresh release blogd each time. Prints
# blogbench's throughput and latency and blogd's CPU per post (from /proc).
# The README's "bounded page cost" and "10 against 10,000 posts" figures.
# Usage: scripts/pagecost.sh [SECONDS]      (build first: swift build -c release)
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-5}
bin=.build/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
run() { # label posts-measured-per-user prefill-args...
  local label=$1 measured=$2; shift 2
  local p d pid ticks=0 before out prefix all=()
  p=$(free_port); d="$tmp/$label"; mkdir -p "$d/public"
  # Cheap scrypt: the logins each run needs are not what is measured.
  BLOGD_SCRYPT_LOG_N=4 BLOGD_SCRYPT_P=1 BLOGD_LOG_LEVEL=warning "$bin/blogd" serve --host 127.0.0.1 --port "$p" \
    --db "$d/blog.sqlite" --public "$d/public" 2>"$d.log" & pid=$!
  wait_port "$p" || { echo "blogd did not start"; return; }
  # Five users in turn: each one's pages are filled first (unmeasured),
  # then it posts `measured` small posts, which all land on those pages.
  for round in 1 2 3 4 5; do
    prefix="p${round}x$RANDOM"
    "$bin/blogbench" --port "$p" --op newpost --clients 1 --user-prefix "$prefix" --requests 1 --warmup 0 "$@" --json >/dev/null 2>&1
    before=$(ticks "$pid")
    out=$("$bin/blogbench" --port "$p" --op newpost --clients 1 --user-prefix "$prefix" --requests "$measured" --warmup 0 --json 2>/dev/null)
    ticks=$((ticks + $(ticks "$pid") - before))
    all+=("$out")
  done
  kill "$pid"; wait "$pid" 2>/dev/null
  python3 - "$ticks" "$label" "${all[@]}" <<'PY'
import json, sys
t = int(sys.argv[1]); runs = [json.loads(a) for a in sys.argv[3:]]
ok = sum(r["ok"] for r in runs); bad = sum(r["unexpected"] + r["errors"] for r in runs)
p50 = sorted(r["p50_ms"] for r in runs)[len(runs) // 2]; p99 = max(r["p99_ms"] for r in runs)
print("%-18s %5d posts  p50 %6.2f ms  p99 %6.2f ms  %5d us CPU a post  (%d failed)" % (sys.argv[2], ok, p50, p99, round(t * 1e4 / max(ok, 1)), bad))
PY
}
# Heavy pages: 45 posts after the prefill still land on its main page.
run ordinary          45 --prefill-posts 99
run fullOfMaxPosts    45 --prefill-posts 99 --prefill-post-size 64000
run fullOfMaxQuotes   45 --prefill-posts 99 --prefill-post-size 64000 --prefill-quotes
run tenPosts         500 --prefill-posts 10
run tenThousandPosts 500 --prefill-posts 10000
