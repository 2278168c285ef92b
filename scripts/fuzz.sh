#!/usr/bin/env bash
# Fuzzes the protocol codec (Sources/BlogFuzz) with libFuzzer and
# AddressSanitizer for a bounded time, starting from the seed corpus in
# Fuzz/corpus. Usage: scripts/fuzz.sh [SECONDS]   (default 120)
# Not part of CI: it needs a separate instrumented build of every module.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-120}
scratch=.build-fuzz
swift build --scratch-path "$scratch" --product BlogFuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -D -Xswiftc FUZZING

mkdir -p "$scratch/corpus" "$scratch/crashes"
log="$scratch/fuzz.log"
set +e
"$scratch/debug/BlogFuzz" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$scratch/crashes/" "$scratch/corpus" Fuzz/corpus 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo 0)
echo "fuzz: $runs inputs in ${seconds}s, exit status $status, crashes: $(ls "$scratch/crashes" | wc -l)"
exit "$status"
