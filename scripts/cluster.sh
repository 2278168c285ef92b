#!/usr/bin/env bash
# Several instances on one machine: a PostgreSQL cluster, three blogd on one
# database and one public folder, and HAProxy in front (config/haproxy.cfg).
#
#   scripts/cluster.sh start     # then: printf 'register:alice:pw[E];' | nc -q1 localhost 51515
#   scripts/cluster.sh status
#   scripts/cluster.sh stop
#
# Everything lives under data/cluster/ (database files, logs, pids); the
# pages go to public/ as with one instance. Needs PostgreSQL and HAProxy:
#   apt-get install -y postgresql haproxy
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/data/cluster
pgport=${PGPORT:-55432}
bin=.build/release/blogd

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
# PostgreSQL refuses to run as root: run it as the postgres user then.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start() {
    local pg; pg=$(pg_bin)
    [ -n "$pg" ] || { echo "PostgreSQL not found: apt-get install -y postgresql" >&2; exit 1; }
    command -v haproxy >/dev/null || { echo "HAProxy not found: apt-get install -y haproxy" >&2; exit 1; }
    [ -x "$bin" ] || swift build -c release --product blogd
    mkdir -p "$root" public
    if [ ! -d "$root/pg" ]; then
        mkdir -p "$root/pg"
        [ "$(id -u)" = 0 ] && chown postgres "$root/pg" && chmod o+x "$root" "$(dirname "$root")"
        as_pg "$pg/initdb" -D "$root/pg" -U blogd --auth=trust >/dev/null
    fi
    as_pg "$pg/pg_ctl" -D "$root/pg" -l "$root/pg/server.log" -w \
        -o "-p $pgport -k $root/pg -c listen_addresses=127.0.0.1" start >/dev/null
    as_pg "$pg/psql" -h 127.0.0.1 -p "$pgport" -U blogd -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'blog'" | grep -q 1 \
        || as_pg "$pg/createdb" -h 127.0.0.1 -p "$pgport" -U blogd blog
    echo "postgresql on 127.0.0.1:$pgport"
    for n in 1 2 3; do
        BLOGD_PORT=$((51600 + n)) BLOGD_HTTP_PORT=$((8080 + n)) \
        BLOGD_DB="postgres://blogd@127.0.0.1:$pgport/blog" BLOGD_PUBLIC=public \
        BLOGD_PROXY_PROTOCOL=true BLOGD_TRUSTED_PROXIES=127.0.0.1 \
            nohup "$bin" serve >"$root/blogd$n.log" 2>&1 &
        echo $! >"$root/blogd$n.pid"
    done
    for n in 1 2 3; do
        for _ in $(seq 100); do grep -q "listening on" "$root/blogd$n.log" && break; sleep 0.1; done
        grep -q "listening on" "$root/blogd$n.log" || { echo "blogd$n did not start:" >&2; tail "$root/blogd$n.log" >&2; exit 1; }
        echo "blogd$n on :$((51600 + n)), pages and /healthz on :$((8080 + n))"
    done
    haproxy -D -f config/haproxy.cfg -p "$root/haproxy.pid"
    echo "haproxy on :51515 (blog) and :8080 (pages)"
}

stop() {
    [ -f "$root/haproxy.pid" ] && kill "$(cat "$root/haproxy.pid")" 2>/dev/null || true
    for n in 1 2 3; do
        [ -f "$root/blogd$n.pid" ] && kill "$(cat "$root/blogd$n.pid")" 2>/dev/null || true
    done
    local pg; pg=$(pg_bin)
    [ -n "$pg" ] && [ -d "$root/pg" ] && as_pg "$pg/pg_ctl" -D "$root/pg" -m fast stop >/dev/null 2>&1 || true
    rm -f "$root"/*.pid
    echo stopped
}

status() {
    for n in 1 2 3; do
        if [ -f "$root/blogd$n.pid" ] && kill -0 "$(cat "$root/blogd$n.pid")" 2>/dev/null; then
            echo "blogd$n up, health: $(curl -s "http://127.0.0.1:$((8080 + n))/healthz" || echo none)"
        else
            echo "blogd$n down"
        fi
    done
    [ -f "$root/haproxy.pid" ] && kill -0 "$(cat "$root/haproxy.pid")" 2>/dev/null && echo "haproxy up" || echo "haproxy down"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
