#!/usr/bin/env bash
# Proves the cluster demo (scripts/cluster.sh) keeps its hands off a single
# server: with a single blogd serving a folder of its own, the demo refuses
# to start on a taken port and leaves nothing running, then starts, takes a
# register and a post through HAProxy, says so when started twice, stops,
# starts again with its data, and stops; the single server's pages (and the
# repository's public/) are byte for byte what they were, and it still
# answers.
#
#   scripts/cluster-check.sh          # BLOGD_BIN=.build/debug/blogd to skip the release build
#
# Skipped (exit 0) without PostgreSQL or HAProxy, unless
# BLOGD_REQUIRE_POSTGRES=1 or BLOGD_REQUIRE_HAPROXY=1 (.ci/run) make that a
# failure. The cluster's own files go to a temporary folder, not
# data/cluster; its ports are the demo's, or what BLOGD_CLUSTER_PORT,
# BLOGD_CLUSTER_HTTP_PORT and PGPORT say (scripts/cluster.sh), so a demo
# cluster already running on them makes this fail, naming the port.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v haproxy >/dev/null || missing+=(haproxy)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "${BLOGD_REQUIRE_POSTGRES:-}" = 1 ] || [ "${BLOGD_REQUIRE_HAPROXY:-}" = 1 ]; then
        echo "cluster-check: FAIL: missing ${missing[*]}" >&2
        exit 1
    fi
    echo "cluster-check: skipped: missing ${missing[*]} (apt-get update && apt-get install -y ${missing[*]})"
    exit 0
fi

bin=${BLOGD_BIN:-.build/release/blogd}
if [ ! -x "$bin" ]; then
    echo "building $bin (release; minutes the first time)"
    swift build -c release --product blogd
fi
export BLOGD_BIN=$bin
work=$(mktemp -d /tmp/blogd-cluster-check.XXXXXX)
# PostgreSQL runs as the postgres user when this runs as root.
chmod 755 "$work"
export BLOGD_CLUSTER_DIR=$work/cluster
front=${BLOGD_CLUSTER_PORT:-51600} pages=${BLOGD_CLUSTER_HTTP_PORT:-8090} pgport=${PGPORT:-55432}
single_pid='' blocker_pid=''

finish() {
    local status=$?
    scripts/cluster.sh stop >/dev/null 2>&1 || true
    for pid in $blocker_pid $single_pid; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    done
    if [ $status = 0 ]; then rm -rf "$work"; else echo "cluster-check: FAIL; files kept in $work" >&2; fi
}
trap finish EXIT

fail() { echo "cluster-check: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# One message on one connection; prints the reply up to its [E];.
send() {
    local reply=''
    exec 3<>"/dev/tcp/127.0.0.1/$1"
    printf '%s' "$2" >&3
    IFS= read -r -d ';' -t 60 reply <&3 || true
    exec 3<&- 3>&-
    printf '%s;' "$reply"
}
expect_reply() { # PORT MESSAGE REPLY
    local got; got=$(send "$1" "$2")
    [ "$got" = "$3" ] || fail "sent '$2' to :$1, expected '$3', got '$got'"
}

# Waits (a generous bound, for a loaded machine) until COMMAND succeeds.
wait_for() {
    local what=$1; shift
    for _ in $(seq 1200); do "$@" && return 0; sleep 0.1; done
    fail "timed out waiting for $what"
}

# Starts a blogd serving FOLDER on ports the kernel picks; sets $pid.
start_blogd() { # FOLDER PORT-ARGS...
    local folder=$1; shift
    mkdir -p "$folder/public"
    cp public/style.css "$folder/public/"
    # A config of its own: the repository's may name ports (metrics_port).
    echo '{}' >"$folder/blogd.json"
    "$bin" serve --config "$folder/blogd.json" --host 127.0.0.1 --db "$folder/blog.sqlite" --public "$folder/public" "$@" \
        >"$folder/log" 2>&1 &
    pid=$!
    wait_for "blogd in $folder to listen" grep -q "listening on" "$folder/log"
}

port_taken() {
    if command -v ss >/dev/null; then [ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]
    else (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; fi
}
tree_sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
contains() { grep -q -- "$2" "$1" 2>/dev/null; }

step "a single blogd in $work/single (ports picked by the kernel)"
start_blogd "$work/single" --port 0 --http 0
single_pid=$pid
single_port=$(grep -o 'listening on [^ ]*' "$work/single/log" | head -1 | sed 's/.*://')
expect_reply "$single_port" 'register:alice:pw[E];' 'reg:OK[E];'
expect_reply "$single_port" 'newpost:alice:From the single server:only here[E];' 'post:OK[E];'
# Its background writes (feeds, index) done: nothing of its own changes later.
for file in alice.html index.html alice.atom index.atom; do
    wait_for "the single server's $file" contains "$work/single/public/$file" 'From the single server'
done
# The sitemap follows within a minute of the start's own write (it is
# written at most once a minute): a later rewrite would look like a change.
wait_for "the single server's sitemap.xml" contains "$work/single/public/sitemap.xml" 'alice.html'
tree_sums "$work/single/public" >"$work/single.before"
tree_sums public >"$work/repo-public.before"

step "a taken port: refused before anything starts"
start_blogd "$work/blocker" --port $((front + 2))
blocker_pid=$pid
if scripts/cluster.sh start >"$work/refused.out" 2>&1; then fail "cluster start succeeded with port $((front + 2)) taken"; fi
grep -q "port $((front + 2)) (blogd2's blog port) is taken" "$work/refused.out" \
    || fail "the refusal does not name the port: $(cat "$work/refused.out")"
[ "$(scripts/cluster.sh status | grep -c ' up')" = 0 ] || fail "something runs after the refusal: $(scripts/cluster.sh status)"
[ ! -e "$BLOGD_CLUSTER_DIR/pg" ] || fail "the refused start made a database"
kill "$blocker_pid"; wait "$blocker_pid" || true; blocker_pid=''

step "cluster start, then start again"
scripts/cluster.sh start
scripts/cluster.sh start | grep -q "already running" || fail "a second start did not say it is running"
expect_reply "$front" 'register:alice:pw[E];' 'reg:OK[E];'
expect_reply "$front" 'newpost:alice:Through the cluster:round one[E];' 'post:OK[E];'
curl -sf http://127.0.0.1:$pages/alice.html | grep -q 'Through the cluster' || fail "the post is not on the cluster's page"
contains "$BLOGD_CLUSTER_DIR/public/alice.html" 'Through the cluster' || fail "the cluster's page is not in its own folder"
[ -f "$BLOGD_CLUSTER_DIR/public/style.css" ] || fail "no style.css in the cluster's folder"

step "cluster stop: everything gone"
scripts/cluster.sh stop
[ "$(scripts/cluster.sh status | grep -c ' up')" = 0 ] || fail "still running after stop: $(scripts/cluster.sh status)"
for port in "$front" $((front + 1)) $((front + 2)) $((front + 3)) "$pages" $((pages + 1)) $((pages + 2)) $((pages + 3)) "$pgport"; do
    ! port_taken "$port" || fail "port $port still taken after stop"
done

step "cluster start again: its data kept"
scripts/cluster.sh start
expect_reply "$front" 'login:alice:pw[E];' 'log:OK[E];'
expect_reply "$front" 'newpost:alice:Second round:round two[E];' 'post:OK[E];'
page=$(curl -sf http://127.0.0.1:$pages/alice.html)
grep -q 'Through the cluster' <<<"$page" && grep -q 'Second round' <<<"$page" || fail "the page lost a post"
scripts/cluster.sh stop

step "the single server untouched"
tree_sums "$work/single/public" >"$work/single.after"
diff "$work/single.before" "$work/single.after" || fail "the single server's pages changed"
tree_sums public >"$work/repo-public.after"
diff "$work/repo-public.before" "$work/repo-public.after" || fail "the repository's public/ changed"
! contains "$work/single/public/alice.html" 'Through the cluster' || fail "a cluster post is on the single server's page"
expect_reply "$single_port" 'login:alice:pw[E];' 'log:OK[E];'
echo "cluster-check: OK"
