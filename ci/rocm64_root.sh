#!/usr/bin/env bash
# The ROCm 6.4 test root: a Debian sid root with sid's HIP 6.4.3, hipcc 7.0.2 (clang-21),
# rocminfo, ROCr 6.4.3 and the ROCm libraries' gtest suites, with SoftGPU built and
# installed inside it from this checkout.
#
#   ci/rocm64_root.sh                make the root, or bring it up to date (cheap when it is)
#   ci/rocm64_root.sh run CMD ARGS   run CMD inside the root (as `chroot`, /proc /sys /dev bound)
#
# ROCM64_ROOT picks the root's folder (default /var/lib/softgpu/rocm64);
# ROCM64_MIRROR the Debian mirror (default deb.debian.org). Needs root and debootstrap
# (installed here with apt-get when missing).
#
# Each stage leaves a stamp under $ROOT/var/lib/softgpu-root/ saying what it made: the base
# system (suite and mirror), the packages (the wanted list, then the versions installed) and
# SoftGPU (a digest of the checkout's files it was built from). A stage whose stamp matches
# what is wanted is skipped, so a complete root costs a few seconds; a stage that fails leaves
# no stamp and is redone next time. /proc, /sys and /dev are bound only inside a private mount
# namespace of each step (unshare), so they are unbound when the step ends however it ends:
# nothing stays mounted on the host, not even after a kill.
set -euo pipefail

ROOT=${ROCM64_ROOT:-/var/lib/softgpu/rocm64}
MIRROR=${ROCM64_MIRROR:-http://deb.debian.org/debian}
SUITE=sid
SRC=$(cd "$(dirname "$0")/.." && pwd)
STAMPS=var/lib/softgpu-root
# The ROCm packages the tests use: HIP and its compiler, the tools, the libraries' test suites
# (with their data), and what builds and runs SoftGPU inside the root (its own Python and gcc;
# its Python dependencies from Debian, so no package index is needed for them).
PACKAGES=(
  hipcc libamdhip64-dev rocminfo libhsa-runtime64-1 libhsa-runtime-dev
  librocrand1-tests libhiprand1-tests librocfft0-tests librocsparse1-tests librocsparse1-tests-data
  libhipsparse1-tests librocblas4-tests librocblas4-tests-data librocsolver0-tests libmiopen1-tests
  python3 python3-dev python3-pip python3-setuptools python3-cffi python3-numpy python3-llvmlite
  python3-pyelftools python3-msgpack python3-tqdm libffi-dev gcc libc6-dev binutils
)

say() { echo "rocm64_root: $*" >&2; }

# Runs "$@" chrooted into directory $1 with /proc, /sys and /dev bound, in a mount namespace
# of its own: the kernel drops the mounts with the namespace, whatever way the command ends.
# The trap unbinds them explicitly too, before the namespace goes. Variables naming host
# paths (a TMPDIR, XDG folders) would name folders the root lacks: clang-21 cannot make its
# temporary files in a TMPDIR that is not there, so they go.
in_root() {
  local dir=$1; shift
  unshare --mount --propagation private -- bash -euo pipefail -c '
    dir=$1; shift
    trap "umount -R \"$dir/dev\" \"$dir/sys\" \"$dir/proc\" 2>/dev/null || true" EXIT
    mount -t proc proc "$dir/proc"
    mount --rbind /sys "$dir/sys"
    mount --rbind /dev "$dir/dev"
    chroot "$dir" /usr/bin/env -u PIP_FIND_LINKS -u PYTHONPATH -u LD_LIBRARY_PATH -u LD_PRELOAD \
      -u TMPDIR -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
  ' in_root "$dir" "$@"
}

if [ "${1:-}" = run ]; then
  shift
  # Shared: commands run side by side (pytest -n), while a maker (below, exclusive) waits
  # for them and they for it, so none runs in a root being remade.
  [ -e "$ROOT.lock" ] && { exec 9>>"$ROOT.lock"; flock -s 9; }
  [ -f "$ROOT/$STAMPS/softgpu" ] || { say "no complete root at $ROOT: run ci/rocm64_root.sh first"; exit 2; }
  in_root "$ROOT" "$@" 9>&-
  exit $?
fi

[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot)"; exit 2; }
mkdir -p "$(dirname "$ROOT")"
# One maker at a time: engineers and CI may share the root.
exec 9>"$ROOT.lock"
flock 9
started=$SECONDS

# 1. The base system.
base_want="$SUITE $MIRROR minbase"
if [ "$(cat "$ROOT/$STAMPS/base" 2>/dev/null)" != "$base_want" ]; then
  command -v debootstrap >/dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  partial="$ROOT.partial"
  rm -rf --one-file-system "$partial" "$ROOT"
  say "debootstrap $SUITE from $MIRROR into $ROOT"
  # In a mount namespace of its own: the /proc and /sys debootstrap mounts go with it.
  unshare --mount --propagation private -- \
    debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$partial" "$MIRROR" \
    > "$ROOT.debootstrap.log" 2>&1 || { say "debootstrap failed, see $ROOT.debootstrap.log"; exit 1; }
  # The mirror's sid Release may read as expired by this machine's clock.
  echo 'Acquire::Check-Valid-Until "false";' > "$partial/etc/apt/apt.conf.d/99softgpu-valid-until"
  mkdir -p "$partial/$STAMPS"
  echo "$base_want" > "$partial/$STAMPS/base"
  mv "$partial" "$ROOT"
fi

# 2. The packages.
pkg_want="${PACKAGES[*]}"
if [ "$(head -1 "$ROOT/$STAMPS/packages" 2>/dev/null)" != "$pkg_want" ]; then
  rm -f "$ROOT/$STAMPS/packages" "$ROOT/$STAMPS/softgpu"
  say "installing ${#PACKAGES[@]} packages (about 1.6 GB)"
  in_root "$ROOT" apt-get update -qq
  in_root "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${PACKAGES[@]}" > "$ROOT.apt.log" 2>&1 || { tail -20 "$ROOT.apt.log" >&2; say "apt-get install failed"; exit 1; }
  in_root "$ROOT" apt-get clean
  # MIOpen's packaged build compiles kernels at run time with the clang of its build machine
  # (a /build/... path it stores): that path leads to the root's clang-21.
  for path in $(strings -a "$ROOT"/usr/lib/x86_64-linux-gnu/libMIOpen.so.1 |
                grep -E '^/build/[^[:space:]]*/clang(\+\+)?(-[0-9]+)?$' | sort -u); do
    mkdir -p "$ROOT$(dirname "$path")"
    ln -sfn "/usr/lib/llvm-21/bin/$(basename "$path" | sed 's/-[0-9]*$//')" "$ROOT$path"
    say "MIOpen's compiler $path -> /usr/lib/llvm-21/bin"
  done
  [ -n "$(find "$ROOT/build" -name 'clang*' 2>/dev/null)" ] || { say "found no compiler path in MIOpen"; exit 1; }
  { echo "$pkg_want"; in_root "$ROOT" dpkg-query -W "${PACKAGES[@]}"; } > "$ROOT/$STAMPS/packages.new"
  mv "$ROOT/$STAMPS/packages.new" "$ROOT/$STAMPS/packages"
fi

# 3. SoftGPU, from the files of this checkout that make the installed package.
tree_files() {
  (cd "$SRC" && find pyproject.toml build_shim.py core softgpu_shim profiles \
     -name __pycache__ -prune -o -type f ! -name '*.pyc' -print | LC_ALL=C sort)
}
sg_want="$(cd "$SRC" && tree_files | xargs sha256sum | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$ROOT/$STAMPS/softgpu" 2>/dev/null)" != "$sg_want" ]; then
  rm -f "$ROOT/$STAMPS/softgpu"
  say "building and installing SoftGPU from $SRC"
  rm -rf "$ROOT/opt/softgpu-src" && mkdir -p "$ROOT/opt/softgpu-src"
  (cd "$SRC" && tree_files | tar -cf - -T -) | tar -xf - -C "$ROOT/opt/softgpu-src"
  # pip reaches no index (Debian gave the dependencies); should it ever, it trusts the host's CA
  # bundle, and never the host's local wheel folders.
  cp /etc/ssl/certs/ca-certificates.crt "$ROOT/opt/softgpu-host-ca.crt" 2>/dev/null || true
  in_root "$ROOT" env PIP_CERT=/opt/softgpu-host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
    python3 -m pip install -q --root-user-action=ignore --break-system-packages --no-deps \
    --no-build-isolation --no-index /opt/softgpu-src > "$ROOT.pip.log" 2>&1 \
    || { tail -30 "$ROOT.pip.log" >&2; say "SoftGPU did not build inside the root"; exit 1; }
  in_root "$ROOT" softgpu --help > /dev/null
  echo "$sg_want" > "$ROOT/$STAMPS/softgpu"
fi
say "root ready at $ROOT ($((SECONDS - started)) s)"
