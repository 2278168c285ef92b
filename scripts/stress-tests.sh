#!/usr/bin/env bash
# Hunts flaky tests: runs the whole test suite N times in a row while two
# busy loops hold both cores, so timing-sensitive tests meet a starved
# machine, as on a loaded CI runner. Builds once first, so the runs time the
# tests, not the compiler. Each run's log is kept; the failed ones' paths
# are printed. Exits 0 only if every run passed.
# Usage: scripts/stress-tests.sh [N] [swift test arguments...]   (N defaults to 5)
#   e.g. scripts/stress-tests.sh 10 --scratch-path .build-stress --filter BlogServerTests
# Not part of CI: it takes N times the suite's time, on a busy machine.
set -u
cd "$(dirname "$0")/.." || exit 1

runs=5
if [ $# -gt 0 ]; then
    case $1 in
        '' | *[!0-9]*) ;;  # not a number: a swift test argument, keep the default
        *) runs=$1; shift ;;
    esac
fi
if [ "$runs" -lt 1 ]; then
    echo "usage: $0 [N >= 1] [swift test arguments...]" >&2
    exit 2
fi

# swift build takes the build options of swift test (--scratch-path, -c, ...)
# but not the test ones (--filter, --skip, --parallel, ...): keep only those
# it understands, so the build matches what the runs will use.
build_args=()
args=("$@")
i=0
while [ "$i" -lt ${#args[@]} ]; do
    case ${args[i]} in
        --scratch-path | --build-path | -c | --configuration | -j | --jobs | -Xswiftc | -Xcc | -Xlinker)
            build_args+=("${args[i]}" "${args[i + 1]:-}")
            i=$((i + 2))
            ;;
        --scratch-path=* | --build-path=* | --configuration=* | --jobs=* | --sanitize=* | --disable-sandbox)
            build_args+=("${args[i]}")
            i=$((i + 1))
            ;;
        *) i=$((i + 1)) ;;
    esac
done

logs=$(mktemp -d "${TMPDIR:-/tmp}/stress-tests.XXXXXX")
hogs=()
cleanup() {
    local pid
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "building (logs in $logs)"
if ! swift build --build-tests "${build_args[@]}" >"$logs/build.log" 2>&1; then
    echo "build FAILED: $logs/build.log"
    exit 1
fi

# Two busy loops, one per core of the 2-core machines this is meant for.
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    hogs+=("$!")
done

passed=0
failed_logs=()
for i in $(seq "$runs"); do
    log="$logs/run-$i.log"
    start=$SECONDS
    if swift test "$@" >"$log" 2>&1; then
        result=passed
        passed=$((passed + 1))
    else
        result=FAILED
        failed_logs+=("$log")
    fi
    echo "run $i/$runs: $result ($((SECONDS - start)) s)"
done

echo "$passed of $runs runs passed"
for log in "${failed_logs[@]}"; do echo "  failed: $log"; done
[ "$passed" -eq "$runs" ]
