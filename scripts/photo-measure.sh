#!/usr/bin/env bash
# What one 12 MP JPEG costs BlogPhotos: time per photo and peak memory,
# in the test process (BLOGD_PHOTO_MEASURE) and, for scale, the vips CLI
# doing the same fit on its own. Needs libvips-tools; build the tests
# first (swift build --build-tests). Numbers for docs/photos.md.
# Usage: scripts/photo-measure.sh [WIDTH HEIGHT]
set -euo pipefail
cd "$(dirname "$0")/.."
width=${1:-4000} height=${2:-3000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# A camera-like picture: colour noise at half the size, enlarged, so the
# JPEG holds about as much as a phone's (4000x3000: about 3 MB at Q 92;
# a flat image would decode faster than a photo).
for band in r g b; do
    vips gaussnoise "$tmp/$band-half.v" $((width / 2)) $((height / 2)) --sigma 50
    vips resize "$tmp/$band-half.v" "$tmp/$band.v" 2 --kernel cubic
done
vips bandjoin "$tmp/r.v $tmp/g.v $tmp/b.v" "$tmp/rgb.v"
vips copy "$tmp/rgb.v" "$tmp/photo.jpg[Q=92]"
echo "input: $(vipsheader "$tmp/photo.jpg"), $(stat -c %s "$tmp/photo.jpg") bytes"
# The test binary itself, not `swift test`, so that its numbers are the
# process's own.
for mmap in 0 1; do
    BLOGD_PHOTO_MEASURE="$tmp/photo.jpg" BLOGD_PHOTO_MEASURE_MMAP=$mmap \
        .build/debug/blogdPackageTests.xctest --testing-library swift-testing --filter PhotoMeasure 2>&1 \
        | grep -E 'photo-measure|✘' | sed 's/\x1b\[[0-9;]*m//g'
done
/usr/bin/time -f "vips CLI thumbnail (same fit): %e s wall, %M KB max RSS" \
    vips thumbnail "$tmp/photo.jpg" "$tmp/out.jpg[Q=85,strip,interlace,optimize_coding]" 2048 --height 2048 --size down
