#!/usr/bin/env bash
# Makes sure Debian's chromium, which the browser test of /docs drives, is installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "browser: chromium is missing, installing Debian's package" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version >&2
