#!/usr/bin/env bash
# Whether a post costs the same with one active blog as with 100,000: for
# each USERS:ACTIVE pair, a database gets USERS users of whom ACTIVE have
# posts (POSTS each, default 2), then blogd serves it and two loads run.
#
# Filling: the rows go straight in through SQLite (one real hash, copied;
# each user's post count and newest post kept as the server keeps them),
# and then blogd's own start-up page check writes every page from them:
# each blog's main page, post pages and feed, the index of blogs and the
# site feed, exactly as the server renders them. So the blogs have real
# pages and the site index real entries, without a million requests; the
# check's time is printed ("pages written in"). The measured runs start
# with the check off (the pages are there), as a large site may.
#
# The loads, by loadgen (../shared/bench) with 50 users of its own:
#  - burst: 8 connections posting for SECONDS: rps, p50/p99, blogd's CPU
#    per post (the index and feeds, written at most once a second, are
#    spread over many posts);
#  - lone: LONE posts one at a time, each followed by a pause long enough
#    for the index, the site feed and the blog's feed to be rewritten:
#    blogd's CPU per post with all of that included (perf stat's
#    task-clock, or /proc ticks without perf) and the post's latency.
# The last lines compare each pair with the first (goal <= 1.2x).
# Needs: swift build -c release --product blogd; gcc; python3; perf (optional).
# Usage: scripts/usercount-bench.sh [SECONDS] [USERS[:ACTIVE] ...]
#        (10 s; 1000:1 1000:1000; ACTIVE defaults to USERS)
# Environment: POSTS (posts per active blog, 2), LONE (lone posts, 20),
# BLOGD (the binary, .build/release/blogd), PROFILE (a path prefix: the
# lone posts are recorded by perf into PROFILE-USERS-ACTIVE.data).
# Filling 100000:100000 takes seconds, the first start's page check of it
# about 3.5 minutes with POSTS=1 (the figures go to stderr), and removing
# its folder at the end several more.
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-10}; shift || true
pairs=("$@"); [ ${#pairs[@]} -eq 0 ] && pairs=(1000:1 1000:1000)
posts=${POSTS:-2}; lone=${LONE:-20}
bin=${BLOGD:-$PWD/.build/release/blogd}
[ -x "$bin" ] || { echo "build first: swift build -c release --product blogd"; exit 2; }
tmp=$(mktemp -d); pid=; trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
gcc -O2 -pthread -o "$tmp/loadgen" ../shared/bench/loadgen.c || exit 2
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { # port seconds
  for _ in $(seq $(($2 * 10))); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
serve() { # folder port check-pages wait-seconds
  BLOGD_LOG_LEVEL=warning BLOGD_CHECK_PAGES_AT_START=$3 "$bin" serve --host 127.0.0.1 --port "$2" \
    --db "$1/blog.sqlite" --public "$1/public" 2>>"$1/blogd.log" & pid=$!
  wait_port "$2" "$4"
}
stop() { kill $pid; wait $pid 2>/dev/null; pid=; }
# Lone posts (port, count, first number), one at a time, each followed by
# 1.5 s: past the 1 s of coalescing, so that the index, the site feed and
# the blog's feed are written for each. Prints the replies' latencies.
cat >"$tmp/lone.py" <<'PY'
import socket, sys, time, json
port, count, first = (int(a) for a in sys.argv[1:4]); times = []
for i in range(first, first + count):
    s = socket.create_connection(("127.0.0.1", port)); t = time.perf_counter()
    s.sendall(f"newpost:bench{i % 50}:Lone {i}:A post on its own.[E];".encode()); s.shutdown(socket.SHUT_WR)
    reply = s.recv(99); times.append(time.perf_counter() - t); s.close()
    assert reply == b"post:OK[E];", reply
    time.sleep(1.5)
times.sort()
print(json.dumps({"lone_p50_ms": round(times[len(times) // 2] * 1e3, 2), "lone_max_ms": round(times[-1] * 1e3, 2)}))
PY
for pair in "${pairs[@]}"; do
  n=${pair%%:*}; m=${pair#*:}; [ "$m" = "$pair" ] && m=$n
  d="$tmp/$n-$m"; mkdir -p "$d/public"; p=$(free_port)
  serve "$d" "$p" false 30 || { echo "blogd did not start"; exit 1; }
  printf 'register:seed:pw[E];' | python3 -c 'import socket,sys;s=socket.create_connection(("127.0.0.1",int(sys.argv[1])));s.sendall(sys.stdin.buffer.read());s.shutdown(1);print(s.recv(99).decode())' "$p" >/dev/null
  stop
  python3 - "$d/blog.sqlite" "$n" "$m" "$posts" <<'PY'
import sqlite3, sys, time, datetime
db = sqlite3.connect(sys.argv[1]); n, m, k = (int(a) for a in sys.argv[2:5]); t = time.time()
(hash, created) = db.execute("SELECT password_hash, created_at FROM users WHERE name = 'seed'").fetchone()
first = db.execute("SELECT max(id) FROM users").fetchone()[0] + 1
db.executemany("INSERT INTO users (id, name, password_hash, created_at) VALUES (?, ?, ?, ?)",
               ((first + i, f"fill{i}", hash, created) for i in range(n)))
# Active blogs posted one after another over the last day, newest last.
start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)
step = 80_000_000 // max(m * k, 1)   # ms
def at(j): return (start + datetime.timedelta(milliseconds=j * step)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
def posts():
    for i in range(m):
        for j in range(k):
            title, text = f"Post {j} of fill{i}", f"Text {j} of blog fill{i}, filled for the bench."
            yield (first + i, title, text, at(i * k + j), 1, len(title) + len(text))
db.executemany("INSERT INTO posts (user_id, title, content, created_at, page, weight) VALUES (?, ?, ?, ?, ?, ?)", posts())
db.execute("""UPDATE users SET post_count = s.c, last_post_id = s.last, last_post_at = s.at, posts_version = s.c
              FROM (SELECT user_id, count(*) AS c, max(id) AS last, max(created_at) AS at FROM posts GROUP BY user_id) s
              WHERE s.user_id = users.id""")
db.commit()
print(f"  {n} users, {m} with {k} posts each, filled in {time.time() - t:.1f} s", file=sys.stderr)
PY
  t0=$(date +%s.%N)
  serve "$d" "$p" true 3600 || { echo "blogd did not start (page check)"; exit 1; }
  python3 -c "import sys;print(f'  pages written in {float(sys.argv[2])-float(sys.argv[1]):.1f} s', file=sys.stderr)" "$t0" "$(date +%s.%N)"
  stop
  serve "$d" "$p" false 60 || { echo "blogd did not start"; exit 1; }
  "$tmp/loadgen" -p "$p" -c 8 -d 1 -m newpost -u 50 >/dev/null   # set-up and warm-up
  before=$(ticks $pid)
  burst=$("$tmp/loadgen" -p "$p" -c 8 -d "$secs" -m newpost -u 50 -S)
  after=$(ticks $pid)
  # A fresh process for the lone posts, so that nothing left of the burst
  # (its feeds, the database's checkpoint) is counted; 3 posts warm it up.
  stop
  serve "$d" "$p" false 60 || { echo "blogd did not start"; exit 1; }
  python3 "$tmp/lone.py" "$p" 3 1000 >/dev/null || exit 1
  perf stat -e task-clock -x, -o "$d/perf" -p $pid 2>/dev/null & perfpid=$!
  if [ -n "${PROFILE:-}" ]; then   # where the lone posts' CPU goes: perf report -i FILE
    perf record -F 4999 -g -o "$PROFILE-$n-$m.data" -p $pid 2>/dev/null & recpid=$!
  fi
  lone_before=$(ticks $pid)
  lone_out=$(python3 "$tmp/lone.py" "$p" "$lone" 0) || exit 1
  lone_after=$(ticks $pid)
  kill -INT $perfpid 2>/dev/null; wait $perfpid 2>/dev/null
  [ -n "${PROFILE:-}" ] && { kill -INT $recpid; wait $recpid 2>/dev/null; }
  stop
  python3 - "$burst" "$((after-before))" "$n" "$m" "$lone_out" "$((lone_after-lone_before))" "$lone" "$d/perf" <<'PY' | tee -a "$tmp/results"
import json, sys
d = json.loads(sys.argv[1]); d.update(json.loads(sys.argv[5]))
d["users"], d["active"] = int(sys.argv[3]), int(sys.argv[4])
d["cpu_us_per_post"] = round(int(sys.argv[2]) * 1e4 / max(d["requests"], 1))
lone_ms = int(sys.argv[6]) * 10.0
try:
    for line in open(sys.argv[8]):
        f = line.split(",")
        if len(f) > 2 and f[2].startswith("task-clock"): lone_ms = float(f[0])
except OSError: pass
d["lone_cpu_us_per_post"] = round(lone_ms * 1e3 / int(sys.argv[7]))
print(json.dumps(d))
PY
done
python3 - "$tmp/results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
a = rows[0]
for b in rows[1:]:
    r = lambda k: b[k] / max(a[k], 1e-9)
    print(f"{b['active']} active / {a['active']} active: burst cpu {r('cpu_us_per_post'):.2f}x, p99 {r('p99_us'):.2f}x;"
          f" lone cpu {r('lone_cpu_us_per_post'):.2f}x   (goal <= 1.2x)")
PY
