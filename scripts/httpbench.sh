#!/usr/bin/env bash
# The page server against nginx, in one run: a blog page of about 52 KB
# made by blogd itself (register + posts over the blog port), then wrk on
# blogd's page server and on nginx (one worker, the same folder), plain and
# with gzip asked for. Prints requests/s of each and the ratio.
# Needs: swift build -c release --product blogd; apt-get install nginx wrk.
# Usage: scripts/httpbench.sh [SECONDS] [CONNECTIONS]   (10 s, 32 connections)
# BLOGD_BIN=path runs another blogd binary (an older build, to compare).
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-10}; conns=${2:-32}
bin=${BLOGD_BIN:-.build/release/blogd}
command -v wrk >/dev/null && command -v nginx >/dev/null || { echo "needs wrk and nginx (apt-get install nginx wrk)"; exit 2; }
[ -x "$bin" ] || { echo "build first: swift build -c release --product blogd"; exit 2; }
tmp=$(mktemp -d); trap 'kill $blogd $nginx_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
mkdir -p "$tmp/public"; cp public/style.css "$tmp/public/" 2>/dev/null
# nginx's worker runs as nobody when started as root: mktemp's folder is
# 0700, and nginx would answer 403 to every request (measured so before).
chmod 755 "$tmp"
p=$(free_port); h=$(free_port); n=$(free_port)
BLOGD_LOG_LEVEL=warning BLOGD_SCRYPT_LOG_N=4 BLOGD_SCRYPT_P=1 "$bin" serve --host 127.0.0.1 --port "$p" --http "$h" \
  --db "$tmp/blog.sqlite" --public "$tmp/public" 2>"$tmp/blogd.log" & blogd=$!
wait_port "$p" && wait_port "$h" || { echo "blogd did not start"; exit 1; }
python3 - "$p" <<'PY'
import socket, sys
port = int(sys.argv[1])
def send(msg):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(msg.encode()); s.shutdown(socket.SHUT_WR)
    reply = b""
    while True:
        chunk = s.recv(4096)
        if not chunk: break
        reply += chunk
    s.close(); return reply.decode()
assert send("register:reader:pw[E];") == "reg:OK[E];"
assert send("login:reader:pw[E];") == "log:OK[E];"
for i in range(50):
    text = ("A paragraph of a post about the day, with <em>markup</em> & such. " * 14)
    assert send("newpost:reader:Post number %d:%s[E];" % (i, text)) == "post:OK[E];"
PY
sleep 1
size=$(stat -c %s "$tmp/public/reader.html")
cat > "$tmp/nginx.conf" <<EOF
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  types { text/html html; text/css css; }
  sendfile on;
  # gzip only for clients that ask, as blogd: level 1 is nginx's default.
  gzip on; gzip_types text/html text/css; gzip_min_length 256;
  server { listen 127.0.0.1:$n; root $tmp/public; etag on; }
}
EOF
nginx -c "$tmp/nginx.conf" -g 'daemon off;' & nginx_pid=$!
wait_port "$n" || { echo "nginx did not start"; cat "$tmp/nginx-error.log"; exit 1; }
rate() {  # port, extra wrk args...
  local port=$1; shift
  wrk -t2 -c"$conns" -d"${secs}s" "$@" "http://127.0.0.1:$port/reader.html" | awk '/Requests\/sec/ {print $2}'
}
for port in "$h" "$n"; do  # both must serve the page, whole or gzipped
  for enc in identity gzip; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Accept-Encoding: $enc" "http://127.0.0.1:$port/reader.html")
    [ "$code" = 200 ] || { echo "port $port answered $code for reader.html ($enc)"; exit 1; }
  done
done
echo "page: reader.html, $size bytes; wrk -t2 -c$conns -d${secs}s; one run"
b_plain=$(rate "$h"); n_plain=$(rate "$n")
b_gzip=$(rate "$h" -H 'Accept-Encoding: gzip'); n_gzip=$(rate "$n" -H 'Accept-Encoding: gzip')
python3 - "$b_plain" "$n_plain" "$b_gzip" "$n_gzip" <<'PY'
import sys
bp, np_, bg, ng = map(float, sys.argv[1:5])
print("%-8s %12s %12s %8s" % ("", "blogd rps", "nginx rps", "ratio"))
print("%-8s %12.0f %12.0f %8.2f" % ("plain", bp, np_, bp / np_))
print("%-8s %12.0f %12.0f %8.2f" % ("gzip", bg, ng, bg / ng))
PY
