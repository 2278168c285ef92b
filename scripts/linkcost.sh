#!/usr/bin/env bash
# What links and tags cost a post: 8 clients posting 200-byte posts for
# SECONDS, plain text against text opening with two links and three
# hashtags (blogbench --linked-text: tags written with the post, its
# Webmentions queued in its commit, the sender refusing their TEST-NET
# addresses), and the linked text again with sending off (nosend: what
# the sender's own work costs). Each run on a fresh release blogd; the kinds alternate,
# ROUNDS times, so the machine's drift falls on both alike. Prints posts/s,
# p50/p99 and blogd's CPU per post (from /proc) for each run.
# Usage: scripts/linkcost.sh [SECONDS] [ROUNDS]   (build first: swift build -c release)
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-8}; rounds=${2:-3}
bin=.build/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
run() { # label blogbench-args...
  local label=$1; shift
  local p d pid before after out
  p=$(free_port); d="$tmp/$label.$RANDOM"; mkdir -p "$d/public"
  local send=true; [ "$label" = nosend ] && send=false
  BLOGD_WEBMENTION_SEND=$send BLOGD_SCRYPT_LOG_N=4 BLOGD_SCRYPT_P=1 BLOGD_LOG_LEVEL=warning "$bin/blogd" serve --host 127.0.0.1 --port "$p" \
    --db "$d/blog.sqlite" --public "$d/public" 2>"$d.log" & pid=$!
  wait_port "$p" || { echo "blogd did not start"; return; }
  # Warm-up (unmeasured) registers and logs in the clients' users.
  "$bin/blogbench" --port "$p" --op newpost --clients 8 --user-prefix w --duration 1 --warmup 0 "$@" --json >/dev/null 2>&1
  before=$(ticks "$pid")
  out=$("$bin/blogbench" --port "$p" --op newpost --clients 8 --user-prefix w --duration "$secs" --warmup 0 "$@" --json 2>/dev/null)
  after=$(ticks "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null
  python3 - "$((after - before))" "$label" "$out" <<'PY'
import json, sys
t = int(sys.argv[1]); r = json.loads(sys.argv[3])
print("%-7s %6d posts  %6.0f/s  p50 %6.2f ms  p99 %6.2f ms  %5d us CPU a post  (%d failed)"
      % (sys.argv[2], r["ok"], r["throughput"], r["p50_ms"], r["p99_ms"], round(t * 1e4 / max(r["ok"], 1)),
         r["unexpected"] + r["errors"]))
PY
}
for _ in $(seq "$rounds"); do
  run plain
  run linked --linked-text
  run nosend --linked-text
done
