#!/usr/bin/env bash
# Install, upgrade or remove the clinic receptionist appliance
# (Debian 12, Ubuntu 22.04 or 24.04). Run as root from a checkout or an offline bundle:
#
#   sudo installer/install.sh                       install, or upgrade to this checkout
#   sudo ./appliance-bundle/install.sh              the same from an offline bundle (installer/make-bundle.sh)
#   sudo installer/install.sh --uninstall           remove the service and the software; keep data and config
#   sudo installer/install.sh --uninstall --purge   also delete /etc/appliance, /var/lib/appliance and the user
#
# Re-running is safe: a step that is already done changes nothing. The guide is docs/it-admin.md.
set -Eeuo pipefail
umask 022

usage() {
    cat <<'EOF'
usage: install.sh [options]

  --offline BUNDLE      install from an offline bundle (a .tar from installer/make-bundle.sh, or its
                        extracted folder): pip install --no-index --find-links BUNDLE/wheels
  --device cpu|cuda     where the models run (default: cuda when nvidia-smi sees a GPU, else cpu);
                        only written into a new /etc/appliance/appliance.toml
  --no-start            install and enable the service, but do not start it
  --monitor-web         also serve the monitor to browsers on the clinic's network (appliance-monitor-web.service,
                        HTTPS on [monitor_web] listen); makes a self-signed certificate when there is none
  --uninstall           stop and remove the service and /opt/appliance; keep /etc/appliance and
                        /var/lib/appliance (the database, backups, models)
  --purge               with --uninstall: also delete /etc/appliance, /var/lib/appliance and the
                        appliance user (asks first; --yes to skip the question)
  --yes                 answer yes to --purge's question
  --allow-unsupported-os  try anyway on another distribution

  for CI and development:
  --root DIR            install into DIR as if it were /: every path is prefixed with DIR; nothing
                        outside DIR changes (no useradd, chown, apt-get or systemctl: they are
                        printed as "would run: ..."); the log goes to DIR/var/log/appliance-install.log
  --from-venv PATH      use this existing virtualenv (e.g. the checkout's .venv, with the appliance
                        installed in it) instead of building /opt/appliance/venv: no copy of the app,
                        no pip, no llama.cpp build; the units and /usr/local/bin/appliance point at it
  --skip-models         do not install or verify the models (the doctor will then report them missing)
  -h, --help            this text
EOF
}

# ---------------------------------------------------------------- options

ROOT="" OFFLINE="" FROM_VENV="" DEVICE="" SKIP_MODELS=0 UNINSTALL=0 PURGE=0 YES=0 NO_START=0 ALLOW_OS=0 MONITOR_WEB=0
ARGS=("$@")
while [ $# -gt 0 ]; do
    case "$1" in
        --root) ROOT="${2:?--root needs a folder}"; shift 2 ;;
        --root=*) ROOT="${1#*=}"; shift ;;
        --offline) OFFLINE="${2:?--offline needs a bundle}"; shift 2 ;;
        --offline=*) OFFLINE="${1#*=}"; shift ;;
        --from-venv) FROM_VENV="${2:?--from-venv needs a virtualenv folder}"; shift 2 ;;
        --from-venv=*) FROM_VENV="${1#*=}"; shift ;;
        --device) DEVICE="${2:?--device needs cpu or cuda}"; shift 2 ;;
        --device=*) DEVICE="${1#*=}"; shift ;;
        --skip-models) SKIP_MODELS=1; shift ;;
        --no-start) NO_START=1; shift ;;
        --monitor-web) MONITOR_WEB=1; shift ;;
        --uninstall) UNINSTALL=1; shift ;;
        --purge) PURGE=1; UNINSTALL=1; shift ;;
        --yes|-y) YES=1; shift ;;
        --allow-unsupported-os) ALLOW_OS=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$DEVICE" in ""|cpu|cuda) ;; *) echo "install.sh: --device must be cpu or cuda, not $DEVICE" >&2; exit 2 ;; esac

if [ -n "$ROOT" ]; then
    mkdir -p "$ROOT"
    ROOT="$(cd "$ROOT" && pwd)"
    [ "$ROOT" != / ] || ROOT=""
elif [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root (sudo $0 ${ARGS[*]:-}), or use --root DIR to try it in a folder" >&2
    exit 2
fi

if [ -n "$FROM_VENV" ]; then
    [ -d "$FROM_VENV" ] || { echo "install.sh: --from-venv $FROM_VENV: no such folder" >&2; exit 2; }
    FROM_VENV="$(cd "$FROM_VENV" && pwd)"
fi

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(cd "$SCRIPT_DIR/.." && pwd)"    # the checkout, or the bundle's app/ folder

# where things go on the target system (P prefixes them with --root)
OPT=/opt/appliance
APP=$OPT/app
VENV=$OPT/venv
ETC=/etc/appliance
DATA=/var/lib/appliance
UNITS=/etc/systemd/system
BIN_LINK=/usr/local/bin/appliance
LOG=/var/log/appliance-install.log
SERVICE_USER=appliance
STAFF_GROUP=appliance-staff     # front-desk staff: may watch calls and act on them in the monitor
SHIP=(appliance config models installer systemd docs pyproject.toml README.md)
P() { printf '%s%s' "$ROOT" "$1"; }

# ---------------------------------------------------------------- output and log

mkdir -p "$(P /var/log)"
touch "$(P "$LOG")" && chmod 600 "$(P "$LOG")"
exec > >(tee -a "$(P "$LOG")") 2>&1
TEE_PID=$!
echo
echo "==== $(date '+%Y-%m-%d %H:%M:%S') install.sh ${ARGS[*]:-}"

STEP=0 TOTAL=0 CURRENT="" CHANGES=0 WORK=""
step() { STEP=$((STEP + 1)); CURRENT="$*"; printf '\n[%d/%d] %s\n' "$STEP" "$TOTAL" "$*"; }
say() { printf '      %s\n' "$*"; }
warn() { printf '      warning: %s\n' "$*"; }
changed() { CHANGES=$((CHANGES + 1)); say "$*"; }
die() { printf '      error: %s\n' "$*"; exit 1; }

finish() {
    local rc=$?
    set +e
    if [ "$rc" != 0 ] && [ -n "$CURRENT" ]; then
        echo
        echo "FAILED at step $STEP/$TOTAL: $CURRENT"
        echo "  What went wrong is just above; everything is also in $(P "$LOG")."
        echo "  Fix it, then run the same command again (finished steps are skipped):"
        echo "    sudo $0 ${ARGS[*]:-}"
    fi
    [ -z "$WORK" ] || rm -rf "$WORK"
    exec 1>&- 2>&-
    wait "$TEE_PID" 2>/dev/null
    exit "$rc"
}
trap finish EXIT

# a command that changes the real system: in --root mode it is only printed
system() {
    local shown="" arg
    for arg in "$@"; do
        case "$arg" in *[[:space:]]*) shown+="'$arg' " ;; *) shown+="$arg " ;; esac
    done
    if [ -n "$ROOT" ]; then
        say "would run: ${shown% }"
    else
        say "running: ${shown% }"
        "$@"
    fi
}

# the installed appliance command, with the installed settings and data folder
appliance_env() {  # appliance_env [VAR=value...] COMMAND...
    env APPLIANCE_CONFIG="$(P "$ETC")/appliance.toml" APPLIANCE_DATA="$(P "$DATA")" \
        APPLIANCE_CLINIC="$(P "$ETC")/clinic.yaml" "$@"
}

# the same as the service user (in --root mode: as whoever runs the installer)
as_service_user() {  # as_service_user COMMAND...
    if [ -n "$ROOT" ] || [ "$(id -un)" = "$SERVICE_USER" ]; then
        (cd / && appliance_env "$@")
    else
        (cd / && runuser -u "$SERVICE_USER" -- env APPLIANCE_CONFIG="$ETC/appliance.toml" APPLIANCE_DATA="$DATA" \
            APPLIANCE_CLINIC="$ETC/clinic.yaml" HOME="$DATA" "$@")
    fi
}

fix_mode() {   # fix_mode PATH MODE (PATH on the target)
    local path mode want
    path="$(P "$1")"
    mode="$(stat -c %a "$path")"
    want="$(printf '%o' "$((8#$2))")"
    if [ "$mode" != "$want" ]; then
        chmod "$2" "$path"
        changed "mode of $1: $mode -> $want"
    fi
}

fix_owner() {  # fix_owner PATH USER:GROUP [-R]
    local path owner="$2"
    path="$(P "$1")"
    if [ -n "$ROOT" ]; then
        say "would run: chown ${3:-}${3:+ }$owner $1"
        return
    fi
    if [ "${3:-}" = -R ]; then
        if [ -n "$(find "$path" \( ! -user "${owner%%:*}" -o ! -group "${owner##*:}" \) -print -quit)" ]; then
            chown -R "$owner" "$path"
            changed "owner of $1 (and everything in it): $owner"
        fi
    elif [ "$(stat -c %U:%G "$path")" != "$owner" ]; then
        chown "$owner" "$path"
        changed "owner of $1: $owner"
    fi
}

ensure_dir() {  # ensure_dir PATH MODE [USER:GROUP]
    if [ ! -d "$(P "$1")" ]; then
        mkdir -p "$(P "$1")"
        changed "created $1"
    fi
    fix_mode "$1" "$2"
    [ -z "${3:-}" ] || fix_owner "$1" "$3"
}

put() {  # put SOURCE_FILE TARGET MODE [USER:GROUP]: write only when the content differs
    local source="$1" target="$2" dest
    dest="$(P "$2")"
    if [ -f "$dest" ] && cmp -s "$source" "$dest"; then
        :
    else
        mkdir -p "$(dirname "$dest")"
        cp "$source" "$dest.tmp.$$"
        chmod "$3" "$dest.tmp.$$"
        mv -f "$dest.tmp.$$" "$dest"
        changed "wrote $target"
    fi
    fix_mode "$target" "$3"
    [ -z "${4:-}" ] || fix_owner "$target" "$4"
}

link() {  # link TARGET LINK_PATH
    local dest
    dest="$(P "$2")"
    if [ "$(readlink "$dest" 2>/dev/null || true)" != "$1" ]; then
        mkdir -p "$(dirname "$dest")"
        ln -sfn "$1" "$dest"
        changed "linked $2 -> $1"
    fi
}

remove() {  # remove PATH...: delete what exists
    local path
    for path in "$@"; do
        if [ -e "$(P "$path")" ] || [ -L "$(P "$path")" ]; then
            rm -rf "$(P "$path")"
            changed "removed $path"
        fi
    done
}

have_systemd() { [ -z "$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; }

# one installer at a time
if command -v flock >/dev/null 2>&1; then
    mkdir -p "$(P /run)"
    exec 9>>"$(P /run)/appliance-install.lock"   # >>: the lock file is never rewritten
    flock -n 9 || { echo "install.sh: another install.sh is running (lock $(P /run)/appliance-install.lock)"; exit 1; }
fi

# ---------------------------------------------------------------- uninstall

uninstall() {
    TOTAL=$((3 + PURGE))
    if [ "$PURGE" = 1 ] && [ "$YES" != 1 ]; then
        if [ -t 0 ]; then
            printf 'This deletes %s and %s: the database with every call record and booking, the backups and\n' \
                "$(P "$ETC")" "$(P "$DATA")"
            printf 'the settings. Type "yes" to go on: '
            read -r answer
            [ "$answer" = yes ] || { echo "nothing was removed"; exit 1; }
        else
            echo "install.sh: --purge deletes the patient database and backups: add --yes to confirm" >&2
            exit 2
        fi
    fi

    step "Stopping the service"
    if [ -n "$ROOT" ] || have_systemd; then
        system systemctl disable --now appliance.service appliance-maintenance.timer
        if [ -n "$ROOT" ] || [ -f "$UNITS/appliance-monitor-web.service" ]; then
            system systemctl disable --now appliance-monitor-web.service
        fi
        system systemctl stop appliance-maintenance.service
    else
        say "systemd is not running here: nothing to stop"
    fi

    step "Removing the systemd units"
    remove "$UNITS/appliance.service" "$UNITS/appliance.service.d" "$UNITS/appliance-maintenance.service" \
        "$UNITS/appliance-maintenance.timer" "$UNITS/appliance-monitor-web.service"
    if [ -n "$ROOT" ] || have_systemd; then
        system systemctl daemon-reload
    fi

    step "Removing the software"
    local target
    target="$(readlink "$(P "$BIN_LINK")" 2>/dev/null || true)"
    case "$target" in */bin/appliance) remove "$BIN_LINK" ;; esac
    remove "$OPT" /etc/modules-load.d/appliance-nvidia.conf

    if [ "$PURGE" = 1 ]; then
        step "Deleting the data, the settings and the service user (--purge)"
        remove "$ETC" "$DATA"
        if [ -n "$ROOT" ] || getent passwd "$SERVICE_USER" >/dev/null; then
            system userdel "$SERVICE_USER"
        fi
        if [ -n "$ROOT" ] || getent group "$SERVICE_USER" >/dev/null; then
            system groupdel "$SERVICE_USER"
        fi
        echo
        echo "Removed the appliance, its data and its settings. The install log stays in $(P "$LOG")."
    else
        echo
        echo "Removed the service and the software. Kept:"
        echo "  $(P "$ETC")        the settings and the clinic file"
        echo "  $(P "$DATA")    the database, backups and models"
        echo "  the $SERVICE_USER user"
        echo "Re-running install.sh brings the service back with them; --uninstall --purge deletes them."
    fi
    CURRENT=""
}

if [ "$UNINSTALL" = 1 ]; then
    uninstall
    exit 0
fi

# ---------------------------------------------------------------- the bundle

BUNDLE="" PIP_SOURCE=()
if [ -n "$OFFLINE" ]; then
    if [ -d "$OFFLINE" ]; then
        BUNDLE="$(cd "$OFFLINE" && pwd)"
    elif [ -f "$OFFLINE" ]; then
        WORK="$(mktemp -d "${TMPDIR:-/var/tmp}/appliance-bundle.XXXXXX")"
        echo "unpacking $OFFLINE"
        tar -xf "$OFFLINE" -C "$WORK" || { echo "install.sh: $OFFLINE is not a readable tar archive"; exit 1; }
        BUNDLE="$(find "$WORK" -mindepth 1 -maxdepth 2 -name BUNDLE-INFO -printf '%h\n' | head -n 1)"
    else
        echo "install.sh: --offline $OFFLINE: no such file or folder"; exit 1
    fi
    if [ -z "$BUNDLE" ] || [ ! -f "$BUNDLE/BUNDLE-INFO" ] || [ ! -d "$BUNDLE/wheels" ] || [ ! -d "$BUNDLE/app" ]; then
        echo "install.sh: $OFFLINE is not an appliance bundle (it needs BUNDLE-INFO, wheels/ and app/;"
        echo "  build one with installer/make-bundle.sh)"
        exit 1
    fi
    SRC="$BUNDLE/app"
    PIP_SOURCE=(--no-index --find-links "$BUNDLE/wheels")
fi
bundle_info() { sed -n "s/^$1=//p" "$BUNDLE/BUNDLE-INFO" | head -n 1; }

# ---------------------------------------------------------------- install steps

TOTAL=11
PY="" PY_VERSION="" CMAKE_FLAGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" APP_CHANGED=0 UNITS_CHANGED=0 DOCTOR_RC=0

check_system() {
    step "Checking the system"
    local release="/etc/os-release" id="" version="" pretty=""
    [ -z "$ROOT" ] || [ ! -f "$ROOT/etc/os-release" ] || release="$ROOT/etc/os-release"
    if [ -f "$release" ]; then
        # shellcheck source=/dev/null
        id="$(. "$release" && echo "${ID:-}")"
        # shellcheck source=/dev/null
        version="$(. "$release" && echo "${VERSION_ID:-}")"
        # shellcheck source=/dev/null
        pretty="$(. "$release" && echo "${PRETTY_NAME:-$ID $version}")"
    fi
    case "$id $version" in
        "debian 12"|"ubuntu 22.04"|"ubuntu 24.04") say "operating system: $pretty" ;;
        *)
            if [ "$ALLOW_OS" = 1 ] || [ -n "$ROOT" ]; then
                warn "${pretty:-this system} is not Debian 12 or Ubuntu 22.04/24.04; going on anyway"
            else
                die "${pretty:-this system} is not supported (Debian 12, Ubuntu 22.04 or 24.04); --allow-unsupported-os to try anyway"
            fi ;;
    esac
    OS_ID="$id" OS_VERSION="$version"

    local mem_kib mem_gib
    mem_kib="$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
    mem_gib="$(awk -v k="$mem_kib" 'BEGIN {printf "%.1f", k / 1048576}')"
    if [ "$mem_kib" -lt $((2 * 1024 * 1024)) ]; then
        [ -n "$ROOT" ] || die "${mem_gib} GiB of memory: the appliance needs at least 2 GiB (4 GiB recommended)"
        warn "${mem_gib} GiB of memory: a real install needs at least 2 GiB"
    elif [ "$mem_kib" -lt $((4 * 1024 * 1024)) ]; then
        warn "${mem_gib} GiB of memory: works, 4 GiB or more is recommended"
    else
        say "memory: ${mem_gib} GiB"
    fi

    local need_mib=6144 where probe free_mib
    if [ -n "$FROM_VENV" ] || [ -x "$(P "$VENV")/bin/python" ]; then need_mib=1024; fi
    for where in "$OPT" "$DATA"; do
        probe="$(P "$where")"
        while [ ! -e "$probe" ]; do probe="$(dirname "$probe")"; done
        free_mib="$(df -Pm "$probe" | awk 'NR == 2 {print $4}')"
        if [ "$free_mib" -lt "$need_mib" ]; then
            die "only ${free_mib} MiB free for $where ($probe): need ${need_mib} MiB (the software, its build and the models)"
        fi
        say "disk: $((free_mib / 1024)) GiB free for $where"
        need_mib=2048
    done
}

python_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true; }

apt_install() {
    if [ -n "$BUNDLE" ]; then
        local debs=("$BUNDLE"/debs/*.deb)
        if [ -e "${debs[0]}" ]; then
            system dpkg -i "${debs[@]}"
            return
        fi
        die "needs $* from the distribution, and this is an offline install without them; install them from the
      distribution's media (apt-get install $*), or build the bundle with make-bundle.sh --debs"
    fi
    system apt-get update -qq
    DEBIAN_FRONTEND=noninteractive system apt-get install -y -qq "$@"
}

check_python() {
    step "Checking Python (3.11 or 3.12)"
    if [ -n "$FROM_VENV" ]; then
        [ -x "$FROM_VENV/bin/python" ] || die "--from-venv $FROM_VENV: no bin/python there"
        [ -x "$FROM_VENV/bin/appliance" ] || die "--from-venv $FROM_VENV: the appliance is not installed in it (no bin/appliance)"
        PY="$FROM_VENV/bin/python"
        PY_VERSION="$(python_version "$PY")"
        say "using $FROM_VENV (Python $PY_VERSION, --from-venv)"
        return
    fi
    local candidate
    find_python() {
        PY=""
        for candidate in python3.12 python3.11 python3; do
            if command -v "$candidate" >/dev/null 2>&1; then
                case "$(python_version "$candidate")" in 3.11|3.12) PY="$(command -v "$candidate")"; return ;; esac
            fi
        done
    }
    find_python
    if [ -z "$PY" ]; then
        if [ "$OS_ID $OS_VERSION" = "ubuntu 22.04" ]; then
            apt_install python3.11 python3.11-venv python3.11-dev
        else
            apt_install python3 python3-venv python3-dev
        fi
        find_python
        [ -n "$PY" ] || die "no Python 3.11 or 3.12 after installing it from the distribution"
    fi
    PY_VERSION="$(python_version "$PY")"
    if ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        apt_install "python${PY_VERSION}-venv"
        [ -n "$ROOT" ] || "$PY" -c 'import ensurepip, venv' || die "python${PY_VERSION}-venv did not make venv usable"
    fi
    say "Python $PY_VERSION: $PY"
    if [ -n "$BUNDLE" ]; then
        local wanted
        wanted="$(bundle_info python)"
        [ -z "$wanted" ] || [ "$wanted" = "$PY_VERSION" ] \
            || die "the bundle was built for Python $wanted, this machine has $PY_VERSION: build the bundle on a machine like this one"
        wanted="$(bundle_info machine)"
        [ -z "$wanted" ] || [ "$wanted" = "$(uname -m)" ] \
            || die "the bundle was built for $wanted, this machine is $(uname -m)"
    elif ! command -v cc >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
        say "a C/C++ compiler is needed: llama-cpp-python builds from source"
        apt_install build-essential "python${PY_VERSION}-dev"
    fi
}

detect_gpu() {
    step "Looking for an NVIDIA GPU"
    if [ -n "$DEVICE" ]; then
        say "device = $DEVICE (--device)"
    elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        DEVICE=cuda
        say "found: $(nvidia-smi -L | head -n 1)"
        say "device = cuda (speech-to-text and the language model run on the GPU)"
    else
        DEVICE=cpu
        say "no NVIDIA GPU with a working driver (nvidia-smi): device = cpu"
    fi
    if [ "$DEVICE" = cuda ] && [ -z "$BUNDLE" ] && [ -z "$FROM_VENV" ]; then
        if command -v nvcc >/dev/null 2>&1; then
            CMAKE_FLAGS="-DGGML_CUDA=on -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"
            say "nvcc found: llama.cpp is built with CUDA"
        else
            warn "the CUDA toolkit (nvcc) is missing: llama.cpp is built for the CPU; speech-to-text still uses the GPU"
        fi
    fi
}

create_user() {
    step "Creating the service user '$SERVICE_USER' and the front desk's group '$STAFF_GROUP'"
    if [ -n "$ROOT" ]; then
        system groupadd --system "$SERVICE_USER"
        system groupadd --system "$STAFF_GROUP"
        system useradd --system --gid "$SERVICE_USER" --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin \
            --comment "Clinic receptionist appliance" "$SERVICE_USER"
        return
    fi
    if getent group "$STAFF_GROUP" >/dev/null; then
        say "group $STAFF_GROUP exists"
    else
        system groupadd --system "$STAFF_GROUP"
        CHANGES=$((CHANGES + 1))
    fi
    if getent group "$SERVICE_USER" >/dev/null; then
        say "group $SERVICE_USER exists"
    else
        system groupadd --system "$SERVICE_USER"
        CHANGES=$((CHANGES + 1))
    fi
    if getent passwd "$SERVICE_USER" >/dev/null; then
        say "user $SERVICE_USER exists"
    else
        system useradd --system --gid "$SERVICE_USER" --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin \
            --comment "Clinic receptionist appliance" "$SERVICE_USER"
        CHANGES=$((CHANGES + 1))
    fi
}

# copy the shipped files of the app to the target, only what differs; delete what is gone
sync_app() {
    "$PY" - "$SRC" "$(P "$APP")" "${SHIP[@]}" <<'PYTHON'
import filecmp, os, shutil, sys
from pathlib import Path

src, dst, items = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
skip_dirs = {"__pycache__", ".pytest_cache", "build"}

def wanted(root):
    found = {}
    for item in items:
        top = root / item
        if top.is_file():
            found[item] = top
        elif top.is_dir():
            for dirpath, dirnames, filenames in os.walk(top):
                dirnames[:] = [d for d in dirnames if d not in skip_dirs and not d.endswith(".egg-info")]
                for name in filenames:
                    if not name.endswith(".pyc"):
                        path = Path(dirpath) / name
                        found[str(path.relative_to(root))] = path
    return found

source, present = wanted(src), wanted(dst) if dst.exists() else {}
changes = 0
for rel, path in sorted(source.items()):
    target = dst / rel
    if rel in present and filecmp.cmp(path, target, shallow=False):
        mode = 0o755 if os.access(path, os.X_OK) else 0o644
        if target.stat().st_mode & 0o777 != mode:
            os.chmod(target, mode)
            changes += 1
        continue
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, target)
    os.chmod(target, 0o755 if os.access(path, os.X_OK) else 0o644)
    changes += 1
for rel in sorted(set(present) - set(source)):
    (dst / rel).unlink()
    changes += 1
print(changes)
PYTHON
}

install_app() {
    step "Installing the appliance software"
    if [ -n "$FROM_VENV" ]; then
        VENV="$(cd "$FROM_VENV" && pwd)"
        say "using the existing virtualenv $VENV (--from-venv): no copy of the app, no pip"
        link "$VENV/bin/appliance" "$BIN_LINK"
        return
    fi
    ensure_dir "$OPT" 0755
    local n
    n="$(sync_app)"
    if [ "$n" != 0 ]; then
        changed "copied the app to $APP ($n file(s) new or changed)"
        APP_CHANGED=1
    else
        say "$APP is up to date"
    fi

    local venv_py
    venv_py="$(P "$VENV")/bin/python"
    if [ -x "$venv_py" ] && [ "$(python_version "$venv_py")" != "$PY_VERSION" ]; then
        changed "the virtualenv has Python $(python_version "$venv_py"), not $PY_VERSION: rebuilding it"
        rm -rf "$(P "$VENV")"
    fi
    if [ ! -x "$venv_py" ]; then
        "$PY" -m venv "$(P "$VENV")"
        changed "created the virtualenv $VENV (Python $PY_VERSION)"
    fi

    # pip runs only when the app, the wheels or the build flags changed since the last install
    local stamp_file wanted
    stamp_file="$(P "$OPT")/.installed"
    wanted="$( { (cd "$(P "$APP")" && find . -type f ! -path '*/__pycache__/*' ! -path '*.egg-info/*' \
                    -exec sha256sum {} + | sort -k 2); echo "cmake=$CMAKE_FLAGS device=$DEVICE";
                 [ -z "$BUNDLE" ] || ls "$BUNDLE/wheels"; } | sha256sum | cut -c1-64)"
    if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$wanted" ]; then
        say "the virtualenv is up to date"
    else
        if [ -z "$BUNDLE" ]; then
            "$venv_py" -m pip install -q --disable-pip-version-check --upgrade pip
        fi
        local extras=voice
        if [ "$DEVICE" = cuda ]; then   # cuBLAS 12 and cuDNN 9, which Whisper needs on the GPU
            if [ -n "$BUNDLE" ] && ! ls "$BUNDLE"/wheels/nvidia_cublas_cu12-* >/dev/null 2>&1; then
                warn "the bundle was made without --cuda: speech-to-text will fall back to the CPU (appliance doctor says so)"
            else
                extras=voice,cuda
            fi
        fi
        say "pip install -e ${APP}[$extras] (llama-cpp-python builds from source the first time: minutes)"
        CMAKE_ARGS="$CMAKE_FLAGS" "$venv_py" -m pip install -q --disable-pip-version-check --no-input \
            "${PIP_SOURCE[@]}" -e "$(P "$APP")[$extras]"
        echo "$wanted" > "$stamp_file"
        changed "installed the appliance and its voice runtimes into $VENV"
        APP_CHANGED=1
    fi
    link "$VENV/bin/appliance" "$BIN_LINK"
    VENV="$(P "$VENV")"   # from here on the installer runs it where it is
}

render_config() {  # render_config OUT: the template with the detected device
    awk -v device="$DEVICE" '
        /^\[/ { section = $0 }
        section == "[device]" && !done && /^device = / { print "device = \"" device "\""; done = 1; next }
        { print }
    ' "$SRC/config/appliance.toml" > "$1"
}

toml_keys() {  # toml_keys NEW OLD: keys set in NEW but not in OLD
    "$PY" - "$1" "$2" <<'PYTHON'
import sys, tomllib
def keys(path):
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, ValueError):
        return set()
    return {f"{section}.{key}" if isinstance(table, dict) else section
            for section, table in data.items()
            for key in (table if isinstance(table, dict) else [section])}
print(", ".join(sorted(keys(sys.argv[1]) - keys(sys.argv[2]))))
PYTHON
}

write_config() {
    step "Writing the settings ($ETC)"
    ensure_dir "$ETC" 0750 "root:$SERVICE_USER"
    local rendered config default new
    rendered="$(mktemp)"
    render_config "$rendered"
    config="$(P "$ETC")/appliance.toml"
    default="$(P "$ETC")/appliance.toml.default"
    new="$(P "$ETC")/appliance.toml.new"
    if [ -f "$config" ]; then
        fix_mode "$ETC/appliance.toml" 0640
        fix_owner "$ETC/appliance.toml" "root:$SERVICE_USER"
    fi
    if [ ! -f "$config" ]; then
        put "$rendered" "$ETC/appliance.toml" 0640 "root:$SERVICE_USER"
        say "device = \"$DEVICE\"; the phone line is set up in its [sip] section"
    elif cmp -s "$rendered" "$config"; then
        say "$ETC/appliance.toml is up to date"
        remove "$ETC/appliance.toml.new"
    elif [ -f "$default" ] && cmp -s "$rendered" "$default"; then
        say "$ETC/appliance.toml has your changes; the template has not changed: kept as it is"
    elif [ -f "$default" ] && cmp -s "$config" "$default"; then
        put "$rendered" "$ETC/appliance.toml" 0640
        say "(you had not changed it: it follows the new template)"
    else
        local keys
        keys="$(toml_keys "$rendered" "${default}")"
        [ -f "$default" ] || keys="$(toml_keys "$rendered" "$config")"
        put "$rendered" "$ETC/appliance.toml.new" 0640 "root:$SERVICE_USER"
        say "$ETC/appliance.toml has your changes and is kept. This version's template differs:"
        [ -z "$keys" ] || say "  new settings: $keys"
        say "  merge what you need from $ETC/appliance.toml.new (then delete it). The difference:"
        diff -u "$config" "$new" | head -n 60 | sed 's/^/        /' || true
    fi
    put "$rendered" "$ETC/appliance.toml.default" 0640 "root:$SERVICE_USER"
    rm -f "$rendered"

    if [ -f "$(P "$ETC")/clinic.yaml" ]; then
        say "$ETC/clinic.yaml exists: kept"
    else
        put "$SRC/config/clinic.demo.yaml" "$ETC/clinic.yaml" 0640 "root:$SERVICE_USER"
        say "(the demo clinic: replace it with your clinic before taking real calls)"
    fi
    if [ -f "$(P "$ETC")/appliance.toml.new" ]; then
        say "note: $ETC/appliance.toml.new is waiting to be merged"
    fi
}

prepare_data() {
    step "Preparing the data folder ($DATA)"
    # the one permission model: the service user writes, the staff group reads (the monitor), nobody else
    ensure_dir "$DATA" 0750 "$SERVICE_USER:$STAFF_GROUP"
    ensure_dir "$DATA/backups" 0700 "$SERVICE_USER:$STAFF_GROUP"
    local db="$DATA/appliance.db"
    if [ -f "$(P "$db")" ]; then
        say "the database exists: kept ($db)"
    else
        as_service_user "$VENV/bin/appliance" db init --clinic "$(P "$ETC")/clinic.yaml" --db "$(P "$db")" | sed 's/^/      /'
        changed "created the database $db from $ETC/clinic.yaml"
    fi
    fix_mode "$db" 0640
    fix_owner "$DATA" "$SERVICE_USER:$STAFF_GROUP" -R
}

install_models() {
    step "Installing and checking the models"
    if [ "$SKIP_MODELS" = 1 ]; then
        say "skipped (--skip-models); later: sudo appliance models install, then sudo -u appliance appliance models verify"
        return
    fi
    local pip_env=()
    [ -z "$BUNDLE" ] || pip_env=(PIP_NO_INDEX=1 PIP_FIND_LINKS="$BUNDLE/wheels")
    # as root: pip writes into the virtualenv; the assembled models are then given to the service user
    appliance_env "${pip_env[@]}" CMAKE_ARGS="$CMAKE_FLAGS" "$VENV/bin/appliance" models install | sed 's/^/      /'
    fix_owner "$DATA" "$SERVICE_USER:$SERVICE_USER" -R
    as_service_user "$VENV/bin/appliance" models verify | sed 's/^/      /'
}

render_unit() {  # render_unit NAME OUT: the unit with this install's virtualenv
    sed "s|/opt/appliance/venv/|${UNIT_VENV%/}/|g" "$SRC/systemd/$1" > "$2"
}

install_units() {
    step "Installing the systemd units"
    local name tmp before="$CHANGES"
    tmp="$(mktemp)"
    for name in appliance.service appliance-maintenance.service appliance-maintenance.timer; do
        render_unit "$name" "$tmp"
        put "$tmp" "$UNITS/$name" 0644
    done
    if [ "$DEVICE" = cuda ]; then
        cat > "$tmp" <<'EOF'
# Written by install.sh because device = cuda: the service may use the NVIDIA GPU.
[Service]
PrivateDevices=no
DevicePolicy=closed
DeviceAllow=char-nvidia-frontend rw
DeviceAllow=char-nvidia-uvm rw
DeviceAllow=char-nvidia-caps r
EOF
        put "$tmp" "$UNITS/appliance.service.d/gpu.conf" 0644
        printf '# Written by install.sh: CUDA needs nvidia-uvm, which the sandboxed service cannot load itself\nnvidia-uvm\n' > "$tmp"
        put "$tmp" /etc/modules-load.d/appliance-nvidia.conf 0644
    else
        remove "$UNITS/appliance.service.d" /etc/modules-load.d/appliance-nvidia.conf
    fi
    # the browser monitor: with --monitor-web, or kept up to date once installed
    if [ "$MONITOR_WEB" = 1 ] || [ -f "$(P "$UNITS")/appliance-monitor-web.service" ]; then
        MONITOR_WEB=1
        render_unit appliance-monitor-web.service "$tmp"
        put "$tmp" "$UNITS/appliance-monitor-web.service" 0644
        monitor_web_certificate
    fi
    rm -f "$tmp"
    if [ "$CHANGES" != "$before" ]; then
        UNITS_CHANGED=1
        if [ -n "$ROOT" ] || have_systemd; then system systemctl daemon-reload; fi
    else
        say "the units are up to date"
    fi
}

monitor_web_certificate() {  # a self-signed HTTPS certificate for the browser monitor, unless one is there
    local tls="$ETC/tls" crt key names="" address host
    crt="$tls/monitor-web.crt" key="$tls/monitor-web.key"
    ensure_dir "$tls" 0750 "root:$SERVICE_USER"
    if [ -f "$(P "$crt")" ] && [ -f "$(P "$key")" ]; then
        say "the browser monitor's certificate exists: kept ($crt)"
    else
        command -v openssl >/dev/null 2>&1 || apt_install openssl
        host="$(hostname -f 2>/dev/null || hostname)"
        names="DNS:$host,DNS:localhost,IP:127.0.0.1"
        for address in $(hostname -I 2>/dev/null || true); do names="$names,IP:$address"; done
        (umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1825 \
            -subj "/CN=$host/O=Clinic receptionist appliance" -addext "subjectAltName=$names" \
            -keyout "$(P "$key")" -out "$(P "$crt")" 2>/dev/null) || die "openssl could not make $crt"
        changed "made a self-signed certificate for the browser monitor ($crt: $names)"
    fi
    fix_mode "$crt" 0644
    fix_owner "$crt" "root:$SERVICE_USER"
    fix_mode "$key" 0600     # the service's user alone reads the key
    fix_owner "$key" "$SERVICE_USER:$SERVICE_USER"
}

start_service() {
    step "Starting the service"
    local web=()
    [ "$MONITOR_WEB" = 0 ] || web=(appliance-monitor-web.service)
    if [ -n "$ROOT" ]; then
        system systemctl enable appliance.service appliance-maintenance.timer "${web[@]}"
        [ "$NO_START" = 1 ] || system systemctl start appliance.service appliance-maintenance.timer "${web[@]}"
        return
    fi
    if ! have_systemd; then
        warn "systemd is not running on this machine (a container?): the units are installed but not started"
        return
    fi
    if ! systemctl is-enabled --quiet appliance.service || ! systemctl is-enabled --quiet appliance-maintenance.timer; then
        system systemctl enable appliance.service appliance-maintenance.timer
    fi
    systemctl is-active --quiet appliance-maintenance.timer || system systemctl start appliance-maintenance.timer
    if [ "$NO_START" = 1 ]; then
        say "not started (--no-start): sudo systemctl start appliance"
    elif ! systemctl is-active --quiet appliance.service; then
        system systemctl start appliance.service || {
            journalctl -u appliance.service -n 30 --no-pager | sed 's/^/      /' || true
            die "the service did not start (its last log lines are above; more: journalctl -u appliance)"
        }
    elif [ "$APP_CHANGED" = 1 ] || [ "$UNITS_CHANGED" = 1 ]; then
        system systemctl restart appliance.service
    else
        say "appliance.service is running"
    fi
    if [ "$MONITOR_WEB" = 1 ]; then
        systemctl is-enabled --quiet appliance-monitor-web.service || system systemctl enable appliance-monitor-web.service
        if [ "$NO_START" = 1 ]; then
            :
        elif ! systemctl is-active --quiet appliance-monitor-web.service; then
            system systemctl start appliance-monitor-web.service || {
                journalctl -u appliance-monitor-web.service -n 30 --no-pager | sed 's/^/      /' || true
                die "the browser monitor did not start (its last log lines are above)"
            }
        elif [ "$APP_CHANGED" = 1 ] || [ "$UNITS_CHANGED" = 1 ]; then
            system systemctl restart appliance-monitor-web.service
        fi
    fi
}

run_doctor() {
    step "Checking the installation (appliance doctor)"
    set +e
    local skip=()
    [ "$SKIP_MODELS" = 0 ] || skip=(--no-models)   # they were not installed: no news there
    as_service_user "$VENV/bin/appliance" doctor "${skip[@]}" | sed 's/^/      /'
    DOCTOR_RC="${PIPESTATUS[0]}"
    set -e
    if [ -n "$ROOT" ] && [ "$DOCTOR_RC" != 0 ]; then
        say "(--root: the doctor looked at the staged tree; missing models or service are expected there)"
        DOCTOR_RC=0
    fi
}

next_steps() {
    local rtp=""
    rtp="$("$PY" - "$(P "$ETC")/appliance.toml" <<'PYTHON' 2>/dev/null || true
import sys, tomllib
sip = tomllib.load(open(sys.argv[1], "rb")).get("sip", {})
first, count, port = sip.get("rtp_port", 4000), sip.get("rtp_port_range", 200), sip.get("port", 5060)
print(f"{port} {first}-{first + count - 1}")
PYTHON
)"
    local sip_port="${rtp%% *}" rtp_range="${rtp#* }"
    cat <<EOF

Installed$([ -z "$ROOT" ] || echo " into $ROOT (--root)"). $CHANGES change(s) made this time. Next:
  1. Set up the phone line in $ETC/appliance.toml, section [sip]: mode = "peer" (the PBX sends
     calls here; list it in allowed_peers) or "register" (registrar, user, and a password_file
     owned by $SERVICE_USER, mode 0600). Then: sudo systemctl restart appliance
  2. Replace the demo clinic in $ETC/clinic.yaml with yours, then rebuild the database (this
     empties it): sudo -u $SERVICE_USER appliance db init --clinic $ETC/clinic.yaml --replace
  3. Let the PBX reach this box: ${sip_port:-5060}/udp and ${sip_port:-5060}/tcp (SIP) and ${rtp_range:-4000-4199}/udp (call audio).
  4. The front desk's screen: add each front-desk login to the staff group
     (sudo usermod -aG $STAFF_GROUP LOGIN, then log in again); they run: appliance monitor
  5. Check everything again at any time: sudo -u $SERVICE_USER appliance doctor
  Logs: journalctl -u appliance   The guide: $APP/docs/it-admin.md   This install's log: $(P "$LOG")
EOF
    if [ "$MONITOR_WEB" = 1 ]; then
        cat <<EOF
  The monitor in a browser (appliance-monitor-web): set [monitor_web] listen in $ETC/appliance.toml to this
  box's address on the clinic's network (e.g. ["192.168.1.20:8443"]), give each member of staff an account
  (sudo -u $SERVICE_USER appliance staff add NAME), then: sudo systemctl restart appliance-monitor-web
  The certificate is self-signed ($ETC/tls/monitor-web.crt): each browser asks once to trust it.
EOF
    fi
    if [ "$DOCTOR_RC" != 0 ]; then
        echo
        echo "appliance doctor found problems (FAIL lines above): fix them, then run sudo -u $SERVICE_USER appliance doctor"
    fi
}

check_system
check_python
detect_gpu
create_user
install_app
UNIT_VENV="${FROM_VENV:+$VENV}"
UNIT_VENV="${UNIT_VENV:-/opt/appliance/venv}"
write_config
prepare_data
install_models
install_units
start_service
run_doctor
CURRENT=""
next_steps
[ "$DOCTOR_RC" = 0 ] || exit 3
