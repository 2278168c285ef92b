#!/usr/bin/env bash
# Issue 16's crowd table: attacks from many loopback addresses at once
# against a fresh release blogd each (default config, --http on, audit log at
# warning), while a well-behaved client from an address outside the crowd
# (127.0.0.1 as in attack.sh, or CLIENT=ADDRESS) works, then one
# SIGTERM: the server must exit within 20 s.
#   connection-hog  60 addresses x 32 idle blog-port connections
#   login-flood     100 addresses flooding logins of random names
#   http-idle       20 addresses x 50 idle HTTP connections
# Usage: scripts/crowd.sh [SECONDS] [KIND...]   (build first: swift build -c release)
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-20}; shift 2>/dev/null
kinds=("$@"); [ ${#kinds[@]} -eq 0 ] && kinds=(connection-hog login-flood http-idle)
client=${CLIENT:-127.0.0.1}
bin=.build/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
summary=()
for kind in "${kinds[@]}"; do
  case "$kind" in
    connection-hog) crowd=(--attacker-addresses 60 --connections 1920) ;;
    login-flood)    crowd=(--attacker-addresses 100) ;;
    http-idle)      crowd=(--attacker-addresses 20 --connections 1000) ;;
    *) echo "unknown kind $kind"; continue ;;
  esac
  p=$(free_port); h=$(free_port); d="$tmp/$kind"; mkdir -p "$d/public"
  BLOGD_LOG_LEVEL=warning "$bin/blogd" serve --host 127.0.0.1 --port "$p" --http "$h" \
    --db "$d/blog.sqlite" --public "$d/public" 2>"$d.log" & pid=$!
  wait_port "$p" && wait_port "$h" || { echo "$kind: blogd did not start"; kill "$pid"; continue; }
  echo "=== $kind ${crowd[*]}"
  "$bin/blogbench" attack "$kind" "${crowd[@]}" --client-address "$client" --port "$p" --http-port "$h" \
    --duration "$secs" --server-pid "$pid" --json > "$d.json"
  python3 -m json.tool "$d.json" 2>/dev/null | head -90 || cat "$d.json"
  start=$(date +%s.%N)
  kill -TERM "$pid"
  stopped=no; for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || { stopped=yes; break; }; sleep 0.1; done
  wait "$pid" 2>/dev/null; status=$?
  [ "$stopped" = no ] && { kill -9 "$pid"; status=killed; }
  took=$(python3 -c "import time;print('%.1f' % (time.time() - $start))")
  echo "log lines: $(wc -l < "$d.log")"
  summary+=("$(python3 - "$d.json" "$kind" "$status" "$took" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); k, st, took = sys.argv[2:5]
def fmt(name):
    c = d.get("requests", {}).get(name, {})
    if not c or not c.get("count"): return "%s -" % name
    return "%s n=%s p99=%s ms max=%s fail=%s" % (name, c.get("count"), c.get("p99_ms"), c.get("max_ms"), c.get("failures"))
print("%-15s %s | %s | %s | %s | SIGTERM: exit %s in %s s" % (k, fmt("unknown"), fmt("newpost"), fmt("login"), fmt("page"), st, took))
PY
)")
done
echo; echo "=== summary"; printf '%s\n' "${summary[@]}"
