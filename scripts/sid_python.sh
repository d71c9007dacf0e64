#!/usr/bin/env bash
# Python 3.14 and 3.15 for CI (issue 35): Debian sid's binary packages (python3.14, python3.15 and
# their -venv and -dev; gcc for the sdists without a wheel for that Python; Maven, which the
# launcher uses where it is installed) in a Debian root made with debootstrap, as
# scripts/kafka_image.sh makes the Kafka image's root. The tests run inside it with chroot,
# sharing the host's loopback, /proc, /dev, /sys, the host's Java (for the broker the pytest
# plugin starts) and the launcher's jar cache; the worktree is mounted at its own path.
#
#   bash scripts/sid_python.sh root                   # build the root (or reuse it) and say where
#   bash scripts/sid_python.sh 3.14 -m pytest -q ...  # a fresh venv of 3.14 in the root with
#                                                     # .[test-core], then `python ARGS` in it
#   bash scripts/sid_python.sh each 3.14,3.15 -m pytest A ::: -m pytest B
#                                                     # fresh venvs of both, A in both side by
#                                                     # side, then B in each one after the other
#
# Needs root (debootstrap, mount, chroot). The root is built once and kept at a path named by
# what it holds (STATICCONSUMER_SID_ROOT overrides the folder): a second run on the same machine
# reuses it (and pip's cache inside it). Prints how long each step took.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
started=$SECONDS
say() { echo "+ [sid_python $((SECONDS - started))s] $*" >&2; }

packages="python3.14 python3.14-venv python3.14-dev python3.15 python3.15-venv python3.15-dev"
# Maven: the launcher resolves jars with it where it is installed, as on the host (tests/harness).
packages="$packages gcc ca-certificates maven"
# Debian's sid as this machine's registry serves it: a snapshot whose Release file has expired,
# which debootstrap accepts and apt (by default) does not.
mirror="${STATICCONSUMER_SID_MIRROR:-http://deb.debian.org/debian}"
key=$(printf '%s\n' "$mirror" "$packages" "layout 1" | sha256sum | cut -c1-12)
sid_root="${STATICCONSUMER_SID_ROOT:-/var/cache/staticconsumer/sid-python-$key}"
in_root=(/usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive
  # The host's trust store, copied in below: pip and the launcher's own downloads verify
  # TLS as the host does.
  SSL_CERT_FILE=/etc/ssl/certs/host-ca-certificates.crt
  PIP_CERT=/etc/ssl/certs/host-ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1)

# Mounts left under the root by a run that was killed: unmounted, deepest first, before the root
# is used or removed (rm -rf through a bind mount would delete the host's files).
unmount_stale() {
  local target
  awk -v prefix="$sid_root/" 'index($2, prefix) == 1 {print $2}' /proc/self/mounts | sort -r |
    while read -r target; do umount -R "$target" 2>/dev/null || umount -l "$target"; done
  if awk -v prefix="$sid_root/" 'index($2, prefix) == 1 {found=1} END {exit !found}' \
    /proc/self/mounts; then
    echo "mounts remain under $sid_root: not touching it" >&2
    exit 1
  fi
}

build_root() {
  unmount_stale
  if [ -f "$sid_root/.staticconsumer-complete" ]; then
    say "root $sid_root reused"
    return
  fi
  rm -rf "$sid_root"
  mkdir -p "$(dirname "$sid_root")"
  say "debootstrap sid from $mirror into $sid_root"
  debootstrap --variant=minbase sid "$sid_root" "$mirror" >"$sid_root.log" 2>&1 \
    || { tail -30 "$sid_root.log" >&2; exit 1; }
  echo 'Acquire::Check-Valid-Until "false";' \
    >"$sid_root/etc/apt/apt.conf.d/99staticconsumer-no-valid-until"
  cp /etc/resolv.conf "$sid_root/etc/resolv.conf"
  say "apt-get install $packages"
  # Java's postinst (Maven's JRE) runs java, which needs /proc.
  mount --bind /proc "$sid_root/proc"
  mounted+=("$sid_root/proc")
  trap unmount_shared EXIT
  # shellcheck disable=SC2086
  chroot "$sid_root" "${in_root[@]}" sh -c \
    "apt-get update -q && apt-get install -y -q --no-install-recommends $packages" \
    >>"$sid_root.log" 2>&1 || { tail -30 "$sid_root.log" >&2; exit 1; }
  chroot "$sid_root" "${in_root[@]}" apt-get clean
  unmount_shared
  trap - EXIT
  touch "$sid_root/.staticconsumer-complete"
  say "root built"
}

# What the chroot shares with the host, each at its own path. The host's Java (JAVA_HOME, or the
# java on PATH) and Debian's /etc/java-* it links into; the jar cache of the launcher.
java_home="${JAVA_HOME:-}"
if [ -z "$java_home" ] && command -v java >/dev/null; then
  java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
fi
jar_cache="${STATICCONSUMER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/staticconsumer}"
mkdir -p "$jar_cache"
shared=(/proc "$repo" "$jar_cache")
# Shared read-only: the tests read them, nothing in the root may change them.
read_only=(/sys)
[ -n "$java_home" ] && read_only+=("$java_home")
# The host's Java trust store too (the JDK's cacerts links to it): Maven verifies TLS as on the host.
for dir in /etc/java-* /etc/ssl/certs/java; do [ -d "$dir" ] && read_only+=("$dir"); done
mounted=()

mount_shared() {
  mount --rbind /dev "$sid_root/dev"
  mount --make-rslave "$sid_root/dev"
  mounted+=("$sid_root/dev")
  for dir in "${shared[@]}" "${read_only[@]}"; do
    mkdir -p "$sid_root$dir"
    mount --bind "$dir" "$sid_root$dir"
    mounted+=("$sid_root$dir")
  done
  for dir in "${read_only[@]}"; do
    mount -o remount,bind,ro "$sid_root$dir"
  done
  cp /etc/ssl/certs/ca-certificates.crt "$sid_root/etc/ssl/certs/host-ca-certificates.crt"
  cp /etc/resolv.conf "$sid_root/etc/resolv.conf"
}

unmount_shared() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
  done
  mounted=()
}

make_venv() {  # a fresh venv of Python $1 in the root with .[test-core] (mounts in place)
  local version="$1" venv="/opt/staticconsumer-venv-$1"
  say "Python $version: fresh venv $venv with .[test-core]"
  chroot "$sid_root" "${in_root[@]}" sh -c "rm -rf $venv && python$version -m venv $venv \
    && $venv/bin/python -m pip install --quiet --upgrade pip \
    && cd '$repo' && $venv/bin/python -m pip install --quiet -e '.[test-core]'" \
    >"$sid_root.venv-$version.log" 2>&1 || { tail -40 "$sid_root.venv-$version.log" >&2; exit 1; }
}
in_venv() {  # `python ARGS` in Python $1's venv (mounts in place); its exit status
  local version="$1"
  shift
  # STATICCONSUMER_* (the broker version, Docker tests...) and CI reach the tests as on the host.
  local passed=()
  mapfile -t passed < <(env | grep -E '^(STATICCONSUMER_[A-Z0-9_]*|CI)=' || true)
  chroot "$sid_root" "${in_root[@]}" ${java_home:+JAVA_HOME=$java_home} "${passed[@]}" \
    STATICCONSUMER_CACHE_DIR="$jar_cache" \
    sh -c "cd '$repo' && exec /opt/staticconsumer-venv-$version/bin/python \"\$@\"" python "$@"
}
run_python() {
  local version="$1"
  shift
  mount_shared
  trap unmount_shared EXIT
  make_venv "$version"
  say "Python $version: python $*"
  local code=0
  in_venv "$version" "$@" || code=$?
  unmount_shared
  trap - EXIT
  say "Python $version: exit $code"
  return "$code"
}
# `each 3.14,3.15 ARGS... [::: ARGS2...]`: a fresh venv of each (one after the other: they build
# into the same worktree), then `python ARGS` in every one side by side (one process per core;
# each one's output printed whole, in order, when all have ended), then `python ARGS2` in each,
# one after the other (tests that start a broker). Exit 1 if any failed.
run_each() {
  local versions=() first=() second=() into=first arg version code=0
  IFS=, read -r -a versions <<<"$1"
  shift
  for arg in "$@"; do
    if [ "$arg" = ":::" ]; then into=second; continue; fi
    if [ "$into" = first ]; then first+=("$arg"); else second+=("$arg"); fi
  done
  each_logs=$(mktemp -d)
  mount_shared
  trap 'unmount_shared; rm -rf "$each_logs"' EXIT
  for version in "${versions[@]}"; do make_venv "$version"; done
  say "side by side on ${versions[*]}: python ${first[*]}"
  for version in "${versions[@]}"; do
    ( set +e; in_venv "$version" "${first[@]}" >"$each_logs/$version.log" 2>&1
      echo $? >"$each_logs/$version.status" ) &
  done
  wait
  for version in "${versions[@]}"; do
    say "Python $version: exit $(cat "$each_logs/$version.status")"
    cat "$each_logs/$version.log"
    [ "$(cat "$each_logs/$version.status")" = 0 ] || code=1
  done
  if [ ${#second[@]} -gt 0 ]; then
    for version in "${versions[@]}"; do
      say "Python $version: python ${second[*]}"
      in_venv "$version" "${second[@]}" || { say "Python $version: failed"; code=1; }
    done
  fi
  unmount_shared
  rm -rf "$each_logs"
  trap - EXIT
  return "$code"
}

# One invocation at a time per root: they share its mounts and its venvs.
mkdir -p "$(dirname "$sid_root")"
exec 9>"$sid_root.lock"
flock 9
case "${1:-}" in
  root)
    build_root
    echo "$sid_root"
    ;;
  3.14 | 3.15)
    build_root
    run_python "$@"
    ;;
  each)
    build_root
    shift
    run_each "$@"
    ;;
  *)
    echo "usage: $0 root | {3.14|3.15} PYTHON-ARGS... | each 3.14,3.15 PYTHON-ARGS... [::: PYTHON-ARGS...]" >&2
    exit 2
    ;;
esac
