#!/usr/bin/env bash
# Whether a post costs the same with 10 users or a million: for each user
# count, a database is filled with that many users straight through SQLite
# (one real hash, copied; their pages not written, and the start-up page
# check off, since it reads every blog), then loadgen (../shared/bench)
# posts for SECONDS with 50 users of its own, and blogd's CPU per post and
# the post's p50/p99 are printed, with the ratio of the largest count to
# the smallest.
# Needs: swift build -c release --product blogd; gcc; python3.
# Usage: scripts/usercount-bench.sh [SECONDS] [COUNTS...]   (10 s; 10 1000000)
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-10}; shift || true
counts=("$@"); [ ${#counts[@]} -eq 0 ] && counts=(10 1000000)
bin=$PWD/.build/release/blogd
[ -x "$bin" ] || { echo "build first: swift build -c release --product blogd"; exit 2; }
tmp=$(mktemp -d); trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
gcc -O2 -pthread -o "$tmp/loadgen" ../shared/bench/loadgen.c || exit 2
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
serve() { # folder port
  BLOGD_LOG_LEVEL=warning BLOGD_CHECK_PAGES_AT_START=false "$bin" serve --host 127.0.0.1 --port "$2" \
    --db "$1/blog.sqlite" --public "$1/public" 2>>"$1/blogd.log" & pid=$!
  wait_port "$2"
}
for n in "${counts[@]}"; do
  d="$tmp/$n"; mkdir -p "$d/public"; p=$(free_port)
  serve "$d" "$p" || { echo "blogd did not start"; exit 1; }
  printf 'register:seed:pw[E];' | python3 -c 'import socket,sys;s=socket.create_connection(("127.0.0.1",int(sys.argv[1])));s.sendall(sys.stdin.buffer.read());s.shutdown(1);print(s.recv(99).decode())' "$p" >/dev/null
  kill $pid; wait $pid 2>/dev/null
  python3 - "$d/blog.sqlite" "$n" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1]); n = int(sys.argv[2]); t = time.time()
(hash, created) = db.execute("SELECT password_hash, created_at FROM users WHERE name = 'seed'").fetchone()
db.executemany("INSERT INTO users (name, password_hash, created_at) VALUES (?, ?, ?)",
               ((f"fill{i}", hash, created) for i in range(n)))
db.commit()
print(f"  {n} users filled in {time.time() - t:.1f} s", file=sys.stderr)
PY
  serve "$d" "$p" || { echo "blogd did not start"; exit 1; }
  "$tmp/loadgen" -p "$p" -c 8 -d 1 -m newpost -u 50 >/dev/null   # set-up and warm-up
  before=$(ticks $pid)
  out=$("$tmp/loadgen" -p "$p" -c 8 -d "$secs" -m newpost -u 50 -S)
  after=$(ticks $pid)
  kill $pid; wait $pid 2>/dev/null
  python3 -c 'import json,sys;d=json.loads(sys.argv[1]);d["users"]=int(sys.argv[3]);d["cpu_us_per_post"]=round(int(sys.argv[2])*1e4/max(d["requests"],1));print(json.dumps(d))' \
    "$out" "$((after-before))" "$n" | tee -a "$tmp/results"
done
python3 - "$tmp/results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
if len(rows) >= 2:
    a, b = rows[0], rows[-1]
    keys = [k for k in ("p99_us", "p99_ms", "p99") if k in a]
    print(f"{b['users']} users / {a['users']} users: cpu per post {b['cpu_us_per_post'] / max(a['cpu_us_per_post'], 1):.2f}x" +
          (f", p99 {b[keys[0]] / max(a[keys[0]], 1e-9):.2f}x" if keys else "") + "   (goal <= 1.2x)")
PY
