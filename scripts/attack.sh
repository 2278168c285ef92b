#!/usr/bin/env bash
# The README's attack table: for each kind of `blogbench attack`, a fresh
# release blogd (default config, --http on, audit log at warning) on its own
# database, the attack from 127.0.0.2 for SECONDS while a well-behaved client
# on 127.0.0.1 works, then one SIGTERM: the server must exit 0 within 20 s.
# Prints blogbench's report per kind, then one summary line per kind.
# upload-flood uploads a 12 MP photo (made with libvips-tools' `vips`) with a
# token of a user made by `blogd token`.
# Usage: scripts/attack.sh [SECONDS] [KIND...]      (build first: swift build -c release)
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-10}; shift 2>/dev/null
kinds=("$@"); [ ${#kinds[@]} -eq 0 ] && kinds=(none login-flood register-flood http-headers http-idle big-posts connection-hog upload-flood webmention-flood)
bin=.build/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
summary=()
for kind in "${kinds[@]}"; do
  p=$(free_port); h=$(free_port); d="$tmp/$kind"; mkdir -p "$d/public"
  BLOGD_LOG_LEVEL=warning "$bin/blogd" serve --host 127.0.0.1 --port "$p" --http "$h" \
    --db "$d/blog.sqlite" --public "$d/public" 2>"$d.log" & pid=$!
  wait_port "$p" && wait_port "$h" || { echo "$kind: blogd did not start"; kill "$pid"; continue; }
  echo "=== $kind"
  extra=()
  if [ "$kind" = upload-flood ]; then
    python3 -c 'import socket,sys; s=socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(b"register:flooder:pw[E];"); s.recv(64)' "$p"
    token=$("$bin/blogd" token flooder --scope media --db "$d/blog.sqlite" 2>/dev/null)
    vips gaussnoise "$d/noise.v" 4000 3000 && vips colourspace "$d/noise.v" "$d/photo.jpg[Q=90]" srgb 2>/dev/null \
      || vips copy "$d/noise.v" "$d/photo.jpg[Q=90]"
    extra=(--photo "$d/photo.jpg" --token "$token")
  fi
  if [ "$kind" = webmention-flood ] || [ "$kind" = inbox-flood ]; then
    # A post to mention, from 100 addresses (127.0.0.2 to 127.0.0.101).
    python3 - "$p" <<'PY'
import socket, sys
def say(m):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(m); r = s.recv(64); s.close(); return r
say(b"register:flooder:pw[E];"); say(b"login:flooder:pw[E];"); say(b"newpost:flooder:Hi:Mention me[E];")
PY
    extra=(--target "http://127.0.0.1:$h/flooder/1.html" --attacker-addresses 100)
  fi
  "$bin/blogbench" attack "$kind" --port "$p" --http-port "$h" --duration "$secs" --server-pid "$pid" --json "${extra[@]}" > "$d.json"
  python3 -m json.tool "$d.json" 2>/dev/null | head -80 || cat "$d.json"
  kill -TERM "$pid"
  stopped=no; for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || { stopped=yes; break; }; sleep 0.1; done
  wait "$pid" 2>/dev/null; status=$?
  [ "$stopped" = no ] && { kill -9 "$pid"; status=killed; }
  summary+=("$(python3 - "$d.json" "$kind" "$status" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); k = sys.argv[2]; st = sys.argv[3]
def kind(name):
    return d.get("requests", {}).get(name, {})
def fmt(c):
    if not c: return "-"
    return "n=%s p50=%s p99=%s ms, failures=%s" % (c.get("count"), c.get("p50_ms"), c.get("p99_ms"), c.get("failures"))
print("%-15s unknown %s | newpost %s | login %s | first SIGTERM: exit %s" % (k, fmt(kind("unknown")), fmt(kind("newpost")), fmt(kind("login")), st))
PY
)")
done
echo; echo "=== summary"; printf '%s\n' "${summary[@]}"
