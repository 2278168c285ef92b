#!/usr/bin/env bash
# Renders real pages in headless Chromium at phone (375 px) and desktop
# (1280 px) widths, light and dark, to check how they look.
# Usage: scripts/screenshots.sh [OUT_DIR]   (default .build/screenshots)
# Not part of CI. Installs Debian's chromium if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-.build/screenshots}
mkdir -p "$out"
if ! command -v chromium >/dev/null; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
swift build --product blogd >/dev/null

tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null && wait "$pid"; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/public"
cp public/style.css "$tmp/public/"
BLOGD_SCRYPT_LOG_N=4 BLOGD_SCRYPT_P=1 BLOGD_PAGE_SIZE=2 .build/debug/blogd serve \
    --host 127.0.0.1 --port 0 --db "$tmp/blog.sqlite" --public "$tmp/public" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$tmp/log" && break; sleep 0.1; done
port=$(grep -o 'listening on [^ ]*' "$tmp/log" | sed 's/.*://')

# One message per connection, as the original client does.
send() {
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf '%s[E];' "$1" >&3
    reply=$(cat <&3)
    exec 3<&-
    [[ $reply == *OK* ]] || { echo "unexpected reply to ${1%%:*}: $reply" >&2; exit 1; }
}

long="Toto je velmi dlouhý příspěvek, který testuje, jak se text zalamuje a čte na malých obrazovkách."
long="$long $long $long $long $long"
send "register:Zuzana:heslo"
send "login:Zuzana:heslo"
send "newpost:Zuzana:Krátký:Jen pár slov."
send "newpost:Zuzana:Příliš žluťoučký kůň úpěl ďábelské ódy:$long"
send "newpost:Zuzana:Several lines:First line
Second line

A paragraph after an empty line."
send "newpost:Zuzana:A very long word:https://example.com/a/really/long/address/that/never/breaks/by/itself/$(printf 'x%.0s' $(seq 80))"
send "newpost:Zuzana:<script>alert('markup stays text')</script>:<b>not bold</b> & not a tag"
send "register:alice:pw"
send "login:alice:pw"
send "newpost:alice:Hello:My first post."
send "register:bob:pw"
sleep 0.5   # the index is rewritten in the background

for page in Zuzana Zuzana.1 index; do
    for width in 375 1280; do
        for scheme in light dark; do
            flags=()
            [[ $scheme == dark ]] && flags=(--force-dark-mode)
            chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "${flags[@]}" \
                --window-size="$width,1800" --screenshot="$out/$page-$width-$scheme.png" \
                "file://$tmp/public/$page.html" 2>/dev/null
        done
    done
done
ls "$out"
