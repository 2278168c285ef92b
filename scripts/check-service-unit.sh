#!/usr/bin/env bash
# Checks config/blogd.service where systemd may not run (CI, containers):
# `systemd-analyze verify` on a copy whose ExecStart names the blogd just
# built (verify wants the programs to exist) must say nothing about the
# unit, and `systemd-analyze security --offline` must rate its exposure at
# most $BLOGD_UNIT_EXPOSURE (2.0; 1.2 when written), so that hardening
# dropped by mistake fails too.
#
#   scripts/check-service-unit.sh       # BLOGD_BIN=path/to/blogd, else .build/{release,debug}/blogd
set -euo pipefail
cd "$(dirname "$0")/.."
unit=config/blogd.service

if ! command -v systemd-analyze >/dev/null; then
    echo "check-service-unit: systemd-analyze not found; install: apt-get update && apt-get install -y systemd" >&2
    exit 1
fi
bin=${BLOGD_BIN:-}
for candidate in .build/release/blogd .build/debug/blogd; do
    [ -n "$bin" ] || { [ -x "$candidate" ] && bin=$candidate; } || true
done
[ -n "$bin" ] && [ -x "$bin" ] || { echo "check-service-unit: no blogd built (swift build --product blogd)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy=$work/blogd.service
sed "s#/usr/local/bin/blogd#$(realpath "$bin")#g" "$unit" >"$copy"
grep -q "^ExecStart=$(realpath "$bin") serve --config /etc/blogd/blogd.json$" "$copy" \
    || { echo "check-service-unit: no ExecStart=/usr/local/bin/blogd serve --config /etc/blogd/blogd.json in $unit" >&2; exit 1; }

# Only the unit itself: the targets it names are the host's business.
status=0
output=$(systemd-analyze verify --man=no --recursive-errors=no "$copy" 2>&1) || status=$?
ours=$(grep -F -e blogd.service -e "$work" <<<"$output" || true)
if [ "$status" != 0 ] || [ -n "$ours" ]; then
    echo "check-service-unit: systemd-analyze verify $unit (exit $status):" >&2
    echo "${ours:-$output}" >&2
    exit 1
fi
[ -z "$output" ] || echo "check-service-unit: (not about the unit) $output"

limit=${BLOGD_UNIT_EXPOSURE:-2.0}
# systemd counts exposure in tenths.
tenths=$(awk -v x="$limit" 'BEGIN { printf "%d", x * 10 + 0.5 }')
if ! report=$(systemd-analyze security --offline=yes --threshold="$tenths" "$copy" 2>&1); then
    echo "$report" >&2
    echo "check-service-unit: exposure of $unit above $limit (or security failed)" >&2
    exit 1
fi
echo "check-service-unit: $unit verified; $(grep -o 'Overall exposure level.*' <<<"$report")"
