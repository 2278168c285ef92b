#!/usr/bin/env bash
# Several instances on one machine: a PostgreSQL cluster, three blogd on one
# database and one public folder, and HAProxy in front (config/haproxy.cfg).
#
#   scripts/cluster.sh start     # then: printf 'register:alice:pw[E];' | nc -q1 localhost 51600
#   scripts/cluster.sh status
#   scripts/cluster.sh stop
#
# It runs beside a single `blogd serve` without touching it: its own folder
# (data/cluster/: database files, pages in data/cluster/public, logs, pids),
# its own config (data/cluster/blogd.json, written at each start: the
# repository's config/blogd.json is not read) and its own ports, all on
# 127.0.0.1: BLOGD_CLUSTER_PORT (51600; HAProxy's blog port, the instances
# on the next three), BLOGD_CLUSTER_HTTP_PORT (8090; HAProxy's pages port,
# the instances' pages and /healthz on the next three), PGPORT (55432;
# PostgreSQL). config/haproxy.cfg reads the same variables. Every tool and
# every port is checked before anything starts; a step that fails stops
# what the run had started. `start` on a running cluster says so.
#
# Needs PostgreSQL, HAProxy and curl:
#   apt-get update && apt-get install -y postgresql haproxy curl
# BLOGD_BIN names a blogd to run (default: .build/release/blogd, built if
# missing); BLOGD_CLUSTER_DIR another folder for everything (default
# data/cluster; scripts/cluster-check.sh uses a temporary one).
set -euo pipefail
cd "$(dirname "$0")/.."
root=${BLOGD_CLUSTER_DIR:-$PWD/data/cluster}
case $root in /*) ;; *) root=$PWD/$root ;; esac
pgport=${PGPORT:-55432}
bin=${BLOGD_BIN:-.build/release/blogd}
instances=(1 2 3)
front_port=${BLOGD_CLUSTER_PORT:-51600}
pages_port=${BLOGD_CLUSTER_HTTP_PORT:-8090}
for port in "$front_port" "$pages_port" "$pgport"; do
    [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65530 ] \
        || { echo "cluster: port '$port' is not a number from 1 to 65530" >&2; exit 2; }
done
blog_port() { echo $((front_port + $1)); }
http_port() { echo $((pages_port + $1)); }
# What config/haproxy.cfg reads.
export BLOGD_CLUSTER_PORT=$front_port BLOGD_CLUSTER_HTTP_PORT=$pages_port
for n in 1 2 3; do
    export "BLOGD_CLUSTER_PORT_$n=$(blog_port "$n")" "BLOGD_CLUSTER_HTTP_PORT_$n=$(http_port "$n")"
done

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
# PostgreSQL refuses to run as root: run it as the postgres user then.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# The pid in FILE, if that process runs and is COMMAND (a pid file left by
# a crash may name a process that has nothing to do with us).
live_pid() {
    local file=$1 command=$2 pid
    [ -f "$file" ] || return 1
    pid=$(cat "$file" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$command" || return 1
    echo "$pid"
}
pg_running() {
    local pg; pg=$(pg_bin)
    [ -n "$pg" ] && [ -f "$root/pg/postmaster.pid" ] && as_pg "$pg/pg_ctl" -D "$root/pg" status >/dev/null 2>&1
}

# What runs now, one word each: pg blogd1 blogd2 blogd3 haproxy.
running_parts() {
    local parts=()
    pg_running && parts+=(pg)
    for n in "${instances[@]}"; do live_pid "$root/blogd$n.pid" blogd >/dev/null && parts+=("blogd$n"); done
    live_pid "$root/haproxy.pid" haproxy >/dev/null && parts+=(haproxy)
    echo "${parts[*]:-}"
}

# Every tool, or one line naming what is missing and how to get it.
check_tools() {
    local missing=()
    [ -n "$(pg_bin)" ] || missing+=(postgresql)
    command -v haproxy >/dev/null || missing+=(haproxy)
    command -v curl >/dev/null || missing+=(curl)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "cluster: missing ${missing[*]}; install: apt-get update && apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "cluster: run as root, PostgreSQL needs the postgres user (the postgresql package makes it)" >&2
        exit 1
    fi
    if [ ! -x "$bin" ] && [ -z "${BLOGD_BIN:-}" ] && ! command -v swift >/dev/null; then
        echo "cluster: no $bin and no swift to build it" >&2
        exit 1
    fi
    [ -n "${BLOGD_BIN:-}" ] && [ ! -x "$bin" ] && { echo "cluster: BLOGD_BIN=$bin is not an executable" >&2; exit 1; }
    return 0
}

# Whether something listens on PORT (any address: ours are on 127.0.0.1,
# which a wildcard listener would clash with too).
port_taken() {
    if command -v ss >/dev/null; then
        [ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
    fi
}
# Every port, or a line per taken one naming its use (and holder, if ss says).
check_ports() {
    local taken=0 port use holder
    local -a wanted=("$front_port:HAProxy's blog port" "$pages_port:HAProxy's pages port" "$pgport:PostgreSQL (PGPORT)")
    for n in "${instances[@]}"; do
        wanted+=("$(blog_port "$n"):blogd$n's blog port" "$(http_port "$n"):blogd$n's HTTP port")
    done
    for entry in "${wanted[@]}"; do
        port=${entry%%:*} use=${entry#*:}
        if port_taken "$port"; then
            holder=$(ss -Htlnp "sport = :$port" 2>/dev/null | grep -o 'users:(([^)]*' | head -1 | sed 's/users:((//')
            echo "cluster: port $port ($use) is taken${holder:+ by $holder}" >&2
            taken=1
        fi
    done
    [ "$taken" = 0 ] || { echo "cluster: nothing was started; free the port(s) above, or stop what holds them" >&2; exit 1; }
}

# What this run started, stopped again if a later step fails.
started=()
undo() {
    [ ${#started[@]} -gt 0 ] || return 0
    echo "cluster: start failed; stopping what it had started: ${started[*]}" >&2
    stop_parts >/dev/null 2>&1 || true
}

start() {
    check_tools
    local up; up=$(running_parts)
    if [ -n "$up" ]; then
        if [ "$up" = "pg blogd1 blogd2 blogd3 haproxy" ]; then
            echo "cluster already running (scripts/cluster.sh status; scripts/cluster.sh stop)"
            return 0
        fi
        echo "cluster: partly running ($up); run scripts/cluster.sh stop first" >&2
        exit 1
    fi
    check_ports
    if [ ! -x "$bin" ]; then
        echo "building $bin (release; minutes the first time)"
        swift build -c release --product blogd
        # Ports may have been taken during a long build.
        check_ports
    fi
    local pg; pg=$(pg_bin)
    trap undo EXIT
    trap 'exit 130' INT TERM
    mkdir -p "$root/public"
    # The cluster's own pages, styled as a single server's are.
    [ -f "$root/public/style.css" ] || cp public/style.css "$root/public/style.css"
    if [ ! -f "$root/pg/PG_VERSION" ]; then
        rm -rf "$root/pg"
        mkdir -p "$root/pg"
        if [ "$(id -u)" = 0 ]; then
            chown postgres "$root/pg"
            chmod o+x "$root" "$(dirname "$root")"
        fi
        as_pg "$pg/initdb" -D "$root/pg" -U blogd --auth=trust >"$root/initdb.log" 2>&1 \
            || { echo "cluster: initdb failed:" >&2; tail "$root/initdb.log" >&2; rm -rf "$root/pg"; exit 1; }
    fi
    started+=(pg)
    as_pg "$pg/pg_ctl" -D "$root/pg" -l "$root/pg/server.log" -w -t 120 \
        -o "-p $pgport -k $root/pg -c listen_addresses=127.0.0.1" start >/dev/null \
        || { echo "cluster: PostgreSQL did not start:" >&2; tail "$root/pg/server.log" >&2; exit 1; }
    as_pg "$pg/psql" -h 127.0.0.1 -p "$pgport" -U blogd -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'blog'" | grep -q 1 \
        || as_pg "$pg/createdb" -h 127.0.0.1 -p "$pgport" -U blogd blog
    echo "postgresql on 127.0.0.1:$pgport"
    # The instances' shared settings; each one's ports come as variables.
    # "public" is relative: read from this file's folder.
    cat >"$root/blogd.json" <<JSON
{
  "_comment": "written by scripts/cluster.sh start",
  "host": "127.0.0.1",
  "db": "postgres://blogd@127.0.0.1:$pgport/blog",
  "public": "public",
  "proxy_protocol": true,
  "trusted_proxies": ["127.0.0.1"],
  "base_url": "http://localhost:$pages_port/"
}
JSON
    for n in "${instances[@]}"; do
        started+=("blogd$n")
        # Emptied here, not only by the child's redirection: that runs
        # after the fork, and on a loaded machine the wait below could
        # read the last run's "listening on" before it.
        : >"$root/blogd$n.log"
        BLOGD_PORT=$(blog_port "$n") BLOGD_HTTP_PORT=$(http_port "$n") \
            nohup "$bin" serve --config "$root/blogd.json" >"$root/blogd$n.log" 2>&1 &
        echo $! >"$root/blogd$n.pid"
    done
    for n in "${instances[@]}"; do
        # A generous bound, for a loaded machine: the line comes in well under a second.
        for _ in $(seq 600); do
            grep -q "listening on" "$root/blogd$n.log" && break
            # Alive, not "is blogd": right after the fork, before nohup's
            # exec, the child's command line is still this script's.
            kill -0 "$(cat "$root/blogd$n.pid")" 2>/dev/null || break
            sleep 0.1
        done
        grep -q "listening on" "$root/blogd$n.log" \
            || { echo "cluster: blogd$n did not start:" >&2; tail "$root/blogd$n.log" >&2; exit 1; }
        echo "blogd$n on 127.0.0.1:$(blog_port "$n"), pages and /healthz on :$(http_port "$n")"
    done
    started+=(haproxy)
    BLOGD_CLUSTER_DIR=$root haproxy -D -f config/haproxy.cfg -p "$root/haproxy.pid" \
        || { echo "cluster: haproxy did not start (see above)" >&2; exit 1; }
    # Up once its health checks pass: a page request answers through it.
    for _ in $(seq 600); do
        curl -sf -o /dev/null "http://127.0.0.1:$pages_port/healthz" && break
        sleep 0.1
    done
    curl -sf -o /dev/null "http://127.0.0.1:$pages_port/healthz" \
        || { echo "cluster: haproxy does not answer on :$pages_port" >&2; exit 1; }
    echo "haproxy on 127.0.0.1:$front_port (blog) and 127.0.0.1:$pages_port (pages in $root/public)"
    started=()
    trap - EXIT INT TERM
}

# Stops PID (SIGTERM, then SIGKILL after 30 s) and waits until it is gone.
stop_pid() {
    local pid=$1
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
}

stop_parts() {
    local pid pg
    pid=$(live_pid "$root/haproxy.pid" haproxy) && stop_pid "$pid"
    for n in "${instances[@]}"; do
        pid=$(live_pid "$root/blogd$n.pid" blogd) && stop_pid "$pid"
    done
    pg=$(pg_bin)
    if pg_running; then as_pg "$pg/pg_ctl" -D "$root/pg" -m fast -w -t 120 stop >/dev/null; fi
    rm -f "$root"/*.pid
}

stop() {
    local up; up=$(running_parts)
    stop_parts
    echo "stopped${up:+ ($up)}"
}

status() {
    pg_running && echo "postgresql up on 127.0.0.1:$pgport" || echo "postgresql down"
    for n in "${instances[@]}"; do
        if live_pid "$root/blogd$n.pid" blogd >/dev/null; then
            echo "blogd$n up, health: $(curl -s "http://127.0.0.1:$(http_port "$n")/healthz" || echo none)"
        else
            echo "blogd$n down"
        fi
    done
    live_pid "$root/haproxy.pid" haproxy >/dev/null && echo "haproxy up" || echo "haproxy down"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
