#!/usr/bin/env bash
# Fuzzes every parser of untrusted input (Sources/BlogFuzz) with libFuzzer
# and AddressSanitizer, each target from its seed corpus Fuzz/corpus/<target>.
#
#   scripts/fuzz.sh [-runs=N] [--keep] [TARGET...]
#
# TARGET: codec proxy multipart form cookie micropub exif webmention discovery inbox (default: all).
# -runs=N: inputs per target (default 1000000). --keep: add the inputs
# that reached new code to Fuzz/corpus/<target> (commit them). A crash
# stops its target and leaves the input in .build-fuzz/crashes/<target>/;
# replay it with `BLOGFUZZ_TARGET=<target> .build/debug/BlogFuzz FILE`.
# Not part of CI: it needs a separate instrumented build of every module.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000
keep=0
targets=()
for argument in "$@"; do
    case $argument in
        -runs=*) runs=${argument#-runs=} ;;
        --keep) keep=1 ;;
        -*) echo "usage: $0 [-runs=N] [--keep] [TARGET...]" >&2; exit 2 ;;
        *) targets+=("$argument") ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(codec proxy multipart form cookie micropub exif webmention discovery inbox)

scratch=.build-fuzz
# -O: unoptimized Swift with the sanitizer runs about 15 times fewer inputs.
swift build --scratch-path "$scratch" --product BlogFuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -O -Xswiftc -D -Xswiftc FUZZING
fuzzer="$scratch/debug/BlogFuzz"

summary=()
status=0
for target in "${targets[@]}"; do
    [ -d "Fuzz/corpus/$target" ] || { echo "fuzz: no corpus Fuzz/corpus/$target" >&2; exit 2; }
    work="$scratch/corpus/$target" crashes="$scratch/crashes/$target"
    mkdir -p "$work" "$crashes"
    log="$scratch/fuzz-$target.log"
    before=$(find "$crashes" -type f | wc -l)
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: 2 GB
    # is unbounded memory for parsers of at most a few megabytes.
    set +e
    BLOGFUZZ_TARGET=$target "$fuzzer" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "Fuzz/corpus/$target" >"$log" 2>&1
    code=$?
    set -e
    inputs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
    [ -n "$inputs" ] || inputs=$(grep -Eo '#[0-9]+' "$log" | tail -1 | tr -d '#' || echo 0)
    found=$(( $(find "$crashes" -type f | wc -l) - before ))
    if [ "$code" -ne 0 ] && [ "$found" -eq 0 ]; then found=1; fi
    [ "$found" -eq 0 ] || { status=1; grep -E '^(==[0-9]+==ERROR|.*Precondition failed|.*Fatal error|SUMMARY)' "$log" | head -5 >&2 || true; }
    if [ "$keep" -eq 1 ] && [ "$found" -eq 0 ]; then
        # Only inputs that reach code the corpus does not (edges, not hit
        # counts): a few dozen a target, not hundreds.
        BLOGFUZZ_TARGET=$target "$fuzzer" -set_cover_merge=1 -use_counters=0 -max_len=4096 \
            "Fuzz/corpus/$target" "$work" >>"$log" 2>&1
    fi
    line="$target: $inputs inputs, $found crashes"
    echo "fuzz: $line (log: $log)"
    summary+=("$line")
done
echo "fuzz summary (-runs=$runs, AddressSanitizer):"
printf '  %s\n' "${summary[@]}"
exit "$status"
