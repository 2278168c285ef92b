#!/usr/bin/env bash
# Makes a self-signed certificate for trying HTTPS and the blog protocol
# over TLS (config/haproxy-tls.cfg) on one machine. Not for the internet:
# there, use a certificate from a CA (Let's Encrypt's certbot, say).
# Usage: scripts/make-tls-certificate.sh [FOLDER] [HOST]   (data/tls localhost)
# Writes FOLDER/blog.crt (the certificate: what clients trust), blog.key
# (its private key, mode 600) and blog.pem (both, as HAProxy reads them).
# The page server takes blog.crt and blog.key: tls_certificate, tls_key.
set -euo pipefail
folder=${1:-data/tls}
host=${2:-localhost}
case $host in
    *[!A-Za-z0-9.:-]* | '') echo "not a host name: $host" >&2; exit 2 ;;
esac
command -v openssl >/dev/null || { echo "needs openssl (apt-get install openssl)" >&2; exit 1; }
mkdir -p "$folder"
umask 077
if [[ $host == *:* || $host =~ ^[0-9.]+$ ]]; then san="IP:$host"; else san="DNS:$host"; fi
# localhost by both names, so that 127.0.0.1 works as well.
[ "$host" = localhost ] && san="DNS:localhost,IP:127.0.0.1,IP:::1"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
    -subj "/CN=$host" -addext "subjectAltName=$san" \
    -keyout "$folder/blog.key" -out "$folder/blog.crt" 2>/dev/null
cat "$folder/blog.crt" "$folder/blog.key" >"$folder/blog.pem"
chmod 644 "$folder/blog.crt"
echo "made $folder/blog.crt, $folder/blog.key and $folder/blog.pem for $host (valid 365 days)"
