#!/usr/bin/env bash
# Reproduces the README's performance tables: release builds of blogd and
# blogbench, a fresh server and database per connection mode, every op at
# 1, 8, 32 and 128 clients, then newpost p99 with 10 and with 10,000 posts
# per user, and the server's peak resident memory.
# Usage: scripts/bench.sh [SECONDS_PER_RUN]   (default 5)
# Not part of CI: it takes several minutes and wants a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-5}
swift build -c release --product blogd >/dev/null
swift build -c release --product blogbench >/dev/null
bin=.build/release
work=$(mktemp -d)
results="$work/results.jsonl"
pid=

start_server() { # $1: extra environment, e.g. BLOGD_KEEP_ALIVE=true
    local dir="$work/server-$RANDOM"
    mkdir -p "$dir/public"
    cp public/style.css "$dir/public/"
    env $1 "$bin/blogd" serve --host 127.0.0.1 --port 0 --db "$dir/blog.sqlite" --public "$dir/public" \
        2>"$dir/log" &
    pid=$!
    for _ in $(seq 200); do grep -q 'listening on' "$dir/log" && break; sleep 0.1; done
    port=$(grep -o 'listening on [^ ]*' "$dir/log" | sed 's/.*://')
}

stop_server() { # prints the server's peak resident size
    local peak
    peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    kill -TERM "$pid"
    wait "$pid" || true
    echo "$peak"
}

cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"; }
trap cleanup EXIT

bench() { # $1: label, then blogbench arguments
    local label=$1
    shift
    echo "  $label $*" >&2
    "$bin/blogbench" --port "$port" --json --timeout 120 "$@" | sed "s/^{/{\"label\":\"$label\",/" >>"$results"
}

declare -A peaks
for mode in per-request keep-alive; do
    if [ "$mode" = keep-alive ]; then start_server BLOGD_KEEP_ALIVE=true; flag=--keep-alive; else start_server ""; flag=; fi
    echo "server ($mode) on port $port" >&2
    for op in bad newpost login register; do
        for clients in 1 8 32 128; do
            bench "$mode" --op "$op" --clients "$clients" --duration "$seconds" $flag
        done
    done
    peaks[$mode]=$(stop_server)
done

start_server ""
echo "page size: newpost with 10 and 10,000 posts per user" >&2
bench pages --op newpost --clients 1 --duration "$seconds" --prefill-posts 10
bench pages --op newpost --clients 1 --duration "$seconds" --prefill-posts 10000
peaks[pages]=$(stop_server)

mkdir -p .build && cp "$results" .build/bench-results.jsonl   # the raw JSON of every run
python3 - "$results" "${peaks[per-request]}" "${peaks[keep-alive]}" "${peaks[pages]}" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("| op | clients | connection | req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | ok | unexpected | errors |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    if r["label"] == "pages":
        continue
    mode = "keep-alive" if r["keep_alive"] else "per request"
    print(f"| {r['op']} | {r['clients']} | {mode} | {r['throughput']:.1f} | {r['p50_ms']:.2f} | {r['p90_ms']:.2f} | "
          f"{r['p99_ms']:.2f} | {r['p999_ms']:.2f} | {r['max_ms']:.2f} | {r['ok']} | {r['unexpected']} | {r['errors']} |")
print()
print("| newpost, 1 client | req/s | p50 ms | p99 ms | max ms |")
print("|---|---:|---:|---:|---:|")
for r in rows:
    if r["label"] == "pages":
        print(f"| {r['prefill_posts']} posts per user | {r['throughput']:.1f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['max_ms']:.2f} |")
print()
print(f"server peak resident size: per request {int(sys.argv[2]) // 1024} MiB, keep-alive {int(sys.argv[3]) // 1024} MiB, "
      f"10,000-post run {int(sys.argv[4]) // 1024} MiB")
PY
