#!/usr/bin/env bash
# Which event-loop count serves best here: starts the release blogd with
# BLOGD_EVENT_LOOPS=N for each N given (default: 1 2), alternating, ROUNDS
# times, and drives it with ../shared/bench's loadgen (bad per connection,
# bad keep-alive, newpost). Prints one line per run: loops, mode, rps, p99,
# blogd's CPU per request. The README's "The event loop" table comes from it.
# Usage: scripts/loops.sh [ROUNDS] [SECONDS] [N...]     (build first: swift build -c release)
set -u
cd "$(dirname "$0")/.." || exit 1
rounds=${1:-3}; secs=${2:-5}; shift 2 2>/dev/null
counts=("$@"); [ ${#counts[@]} -eq 0 ] && counts=(1 2)
bench=$(cd ../shared/bench && pwd)
bin_dir=${TMPDIR:-/tmp}/blogd-anchors; mkdir -p "$bin_dir"
[ "$bin_dir/loadgen" -nt "$bench/loadgen.c" ] || gcc -O2 -pthread -o "$bin_dir/loadgen" "$bench/loadgen.c" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
measure() { # loops keepalive mode [-k]
  local p d pid before after out
  p=$(port); d="$tmp/$1-$2-$3"; mkdir -p "$d/public"
  BLOGD_EVENT_LOOPS=$1 BLOGD_KEEP_ALIVE=$2 .build/release/blogd serve --host 127.0.0.1 --port "$p" \
    --db "$d/blog.sqlite" --public "$d/public" 2>"$d.log" & pid=$!
  wait_port "$p" || { echo "blogd did not start"; return; }
  [ "$3" = newpost ] && "$bin_dir/loadgen" -p "$p" -c 8 -d 1 -m newpost -u 50 >/dev/null
  before=$(ticks $pid)
  out=$("$bin_dir/loadgen" -p "$p" -c 8 -d "$secs" -m "$3" ${4:-} -u 50 -S)
  after=$(ticks $pid)
  kill $pid; wait $pid 2>/dev/null
  python3 -c 'import json,sys
d = json.loads(sys.argv[1]); t = int(sys.argv[2])
print("loops=%s %-15s rps=%7.0f p99_us=%6d cpu_us_per_req=%d" % (sys.argv[3], sys.argv[4], d["rps"], d["p99_us"], round(t * 1e4 / max(d["requests"], 1))))' \
    "$out" "$((after - before))" "$1" "$3${4:+-keepalive}"
}
for ((r = 1; r <= rounds; r++)); do
  for n in "${counts[@]}"; do
    measure "$n" false bad
    measure "$n" true bad -k
    measure "$n" false newpost
  done
done
