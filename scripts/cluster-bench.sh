#!/usr/bin/env bash
# blogbench through HAProxy against one, two and three blogd instances on
# one PostgreSQL database (the README's "Several instances" table), and,
# in the same run, one blogd on SQLite with no balancer, for comparison.
# Each op: 8 clients, one connection per request, SECONDS after 1 s warm-up.
# Usage: scripts/cluster-bench.sh [SECONDS]    (needs postgresql and haproxy)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
swift build -c release --product blogd >/dev/null
swift build -c release --product blogbench >/dev/null
bin=$PWD/.build/release
work=$(mktemp -d); chmod 755 "$work"
# The instances' own config: the repository's (read by default) may name
# ports that clash (metrics_port). Ports are picked free below.
echo '{}' >"$work/blogd.json"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -d "$work/pg" ] && as_pg "$pg/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
pg=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_line() { for _ in $(seq 300); do grep -q "$2" "$1" && return 0; sleep 0.1; done; echo "no '$2' in $1" >&2; tail "$1" >&2; exit 1; }

mkdir "$work/pg"; [ "$(id -u)" = 0 ] && chown postgres "$work/pg"
as_pg "$pg/initdb" -D "$work/pg" -U blogd --auth=trust >/dev/null
pgport=$(free_port)
as_pg "$pg/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w -o "-p $pgport -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null

start_blogd() { # name db proxy public-suffix; sets $port
    local dir="$work/$1"; mkdir -p "$dir"
    port=$(free_port)
    BLOGD_LOG_LEVEL=warning BLOGD_PROXY_PROTOCOL=$3 BLOGD_TRUSTED_PROXIES=127.0.0.1 \
        "$bin/blogd" serve --config "$work/blogd.json" --host 127.0.0.1 --port "$port" --db "$2" --public "$work/public-$4" >/dev/null 2>"$dir/log" &
    pids+=($!)
    for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && return 0; sleep 0.1; done
    echo "blogd $1 did not start" >&2; cat "$dir/log" >&2; exit 1
}

bench() { # label port op
    local out
    out=$("$bin/blogbench" --port "$2" --op "$3" --clients 8 --duration "$secs" --timeout 60 --json 2>"$work/bench.err") \
        || { echo "| $1 | $3 | blogbench failed: $(tail -1 "$work/bench.err") |"; return; }
    python3 -c "import json,sys; r=json.loads(sys.argv[1]); print('| $1 | $3 | %.0f | %.2f | %.2f | %d |' % (r['throughput'], r['p50_ms'], r['p99_ms'], r['errors']+r['unexpected']))" "$out"
}

echo "| setup | op | req/s | p50 ms | p99 ms | failures |"
echo "|---|---|---:|---:|---:|---:|"
mkdir -p "$work/public-sqlite"; cp public/style.css "$work/public-sqlite/"
start_blogd sqlite "$work/blog.sqlite" false sqlite
for op in bad newpost login; do bench "SQLite, 1 blogd, direct" "$port" "$op"; done
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true

for n in 1 2 3; do
    as_pg "$pg/createdb" -h 127.0.0.1 -p "$pgport" -U blogd "blog$n"
    mkdir -p "$work/public-$n"; cp public/style.css "$work/public-$n/"
    backends=()
    for i in $(seq "$n"); do
        start_blogd "pg$n-$i" "postgres://blogd@127.0.0.1:$pgport/blog$n" true "$n"
        backends+=("    server b$i 127.0.0.1:$port send-proxy-v2")
    done
    hport=$(free_port)
    printf 'global\n    maxconn 4096\ndefaults\n    mode tcp\n    timeout connect 10s\n    timeout client 60s\n    timeout server 60s\nfrontend f\n    bind 127.0.0.1:%s\n    default_backend b\nbackend b\n    balance roundrobin\n%s\n' \
        "$hport" "$(printf '%s\n' "${backends[@]}")" >"$work/haproxy$n.cfg"
    haproxy -db -f "$work/haproxy$n.cfg" >"$work/haproxy$n.log" 2>&1 &
    pids+=($!); hp=$!
    for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$hport) 2>/dev/null && break; sleep 0.1; done
    kill -0 "$hp" 2>/dev/null || { echo "haproxy did not start:" >&2; cat "$work/haproxy$n.log" >&2; exit 1; }
    for op in bad newpost login; do bench "PostgreSQL, $n blogd, HAProxy" "$hport" "$op"; done
    kill "$hp"
    for i in $(seq "$n"); do kill "${pids[-1-$i]}" 2>/dev/null || true; done
done
