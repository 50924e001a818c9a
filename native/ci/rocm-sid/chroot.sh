#!/usr/bin/env bash
# Builds (or reuses) the Debian sid chroot with Debian's current ROCm packages.
# Sourced by native/ci/rocm-sid.sh; defines sid_chroot_ensure, sid_in, sid_mount, sid_umount.
# The chroot lives in ${SDMA_LENS_ROCM_CHROOT:-/var/cache/sdma-lens/rocm-sid}/<hash>, where
# <hash> is a hash of the package list and of this recipe: a change builds a new one. It is
# built under a temporary name and renamed when complete, so a half-built chroot is never used.

SID_MIRROR=${SDMA_LENS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SID_CACHE=${SDMA_LENS_ROCM_CHROOT:-/var/cache/sdma-lens/rocm-sid}
# The toolchain (what Debian sid carries for ROCm) plus what the build needs, with overlap's
# hipBLASLt GEMM and amd-smi board telemetry. (The mirror's sid has no libhsakmt-dev.)
# hipblaslt.h includes <hipblas-common/hipblas-common.h> and its CMake package asks for
# hipblas-common, yet libhipblaslt-dev does not depend on libhipblas-common-dev: named here.
SID_PACKAGES="hipcc clang-21 rocm-device-libs-21 libamdhip64-dev libhsa-runtime-dev
librocm-smi-dev libhipblaslt-dev libhipblas-common-dev libamd-smi-dev libsqlite3-dev doctest-dev
cmake make g++ binutils ca-certificates"
# libhipblaslt1's GPU kernels (code objects and their tuning files: 690 MB of the 696 MB it
# installs) are only read when a GEMM runs on a GPU, which never happens here: dpkg leaves
# them out (dpkg.cfg(5), path-exclude). The download (159 MB) stays.
SID_PATH_EXCLUDE="/usr/lib/x86_64-linux-gnu/hipblaslt/library/*"
# sid's librccl1 (5.4.3) is built against HIP 5 (libamdhip64-5), which libhsa-runtime64-1
# 6.4.3 declares it Breaks: apt cannot install it beside ROCm 6.4.3. Its packages are
# unpacked (dpkg-deb -x, not installed) under $SID_RCCL_DIR instead.
SID_RCCL_PACKAGES="librccl1 librccl-dev libamdhip64-5"
SID_RCCL_DIR=/opt/sdma-lens-rccl
SID_RECIPE=5   # bump when the steps below change
SID_KEY=$(printf '%s\n' "$SID_RECIPE" "$SID_MIRROR" $SID_PACKAGES $SID_RCCL_PACKAGES "$SID_PATH_EXCLUDE" | sha256sum | cut -c1-16)
SID_ROOT="$SID_CACHE/$SID_KEY"
SID_MOUNTED=()

sid_mount() {  # sid_mount ROOT: /proc, /dev, /dev/pts (unmounted by sid_umount)
  local root=$1
  mount -t proc proc "$root/proc" && SID_MOUNTED+=("$root/proc") || return 1
  mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && SID_MOUNTED+=("$root/dev") || return 1
}

sid_umount() {  # unmounts in reverse order; safe to call more than once
  local i
  for ((i = ${#SID_MOUNTED[@]} - 1; i >= 0; i--)); do
    umount -R "${SID_MOUNTED[$i]}" 2> /dev/null || umount -lR "${SID_MOUNTED[$i]}" 2> /dev/null
  done
  SID_MOUNTED=()
}

sid_in() {  # sid_in CMD...: runs CMD as root inside the chroot, clean environment
  chroot "$SID_ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

sid_mounts_under() {  # prints the mount points at or below DIR
  awk -v d="$1" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/mounts
}

sid_remove_tree() {  # removes a temporary chroot, never while anything is mounted in it
  local dir=$1 m
  for m in $(sid_mounts_under "$dir" | sort -r); do umount -lR "$m" 2> /dev/null; done
  if [ -n "$(sid_mounts_under "$dir")" ]; then
    echo "still mounted under $dir; not removed"; return 1
  fi
  rm -rf --one-file-system "$dir"
}

sid_chroot_ensure() {  # sid_chroot_ensure LOG: sets SID_BUILT=cold|cached; non-zero on failure
  local log=$1 tmp stale rc
  SID_BUILT=cached
  if [ -f "$SID_ROOT/.sdma-lens-complete" ]; then return 0; fi
  mkdir -p "$SID_CACHE" || return 1
  # One builder at a time; a builder that died left .building-* behind: removed here.
  exec 9> "$SID_CACHE/.lock"
  flock 9
  if [ -f "$SID_ROOT/.sdma-lens-complete" ]; then flock -u 9; return 0; fi
  for stale in "$SID_CACHE"/.building-*; do
    [ -d "$stale" ] && sid_remove_tree "$stale" >> "$log" 2>&1
  done
  tmp=$(mktemp -d "$SID_CACHE/.building-$SID_KEY.XXXXXX") || { flock -u 9; return 1; }
  SID_BUILT=cold
  (
    SID_ROOT=$tmp
    trap sid_umount EXIT
    trap 'exit 1' INT TERM HUP
    echo "debootstrap --variant=minbase sid $tmp $SID_MIRROR"
    debootstrap --variant=minbase sid "$tmp" "$SID_MIRROR" || exit 1
    sid_mount "$tmp" || exit 1
    # Signatures are checked as always; the Release file's expiry is not: a mirror snapshot
    # older than this machine's clock is still the archive it signed.
    echo 'Acquire::Check-Valid-Until "false";' > "$tmp/etc/apt/apt.conf.d/99sdma-lens"
    sid_in apt-get update || exit 1
    echo "path-exclude=$SID_PATH_EXCLUDE" > "$tmp/etc/dpkg/dpkg.cfg.d/99sdma-lens"
    # shellcheck disable=SC2086
    sid_in apt-get install -y --no-install-recommends $SID_PACKAGES || exit 1
    # shellcheck disable=SC2086
    sid_in bash -c "mkdir -p /var/cache/sdma-lens-debs $SID_RCCL_DIR && cd /var/cache/sdma-lens-debs &&
      apt-get download $SID_RCCL_PACKAGES && for d in *.deb; do dpkg-deb -x \$d $SID_RCCL_DIR; done &&
      dpkg-deb -f librccl1_*.deb Version > $SID_RCCL_DIR/librccl1.version && rm -rf /var/cache/sdma-lens-debs" || exit 1
    sid_in apt-get clean
    sid_in dpkg-query -W -f '${Package} ${Version}\n' > "$tmp/.sdma-lens-packages" || exit 1
  ) > "$log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || [ -n "$(sid_mounts_under "$tmp")" ]; then
    sid_remove_tree "$tmp" >> "$log" 2>&1
    flock -u 9
    return 1
  fi
  date -u +%FT%TZ > "$tmp/.sdma-lens-complete"
  rm -rf --one-file-system "$SID_ROOT"   # an incomplete one of the same key (never used)
  mv -T "$tmp" "$SID_ROOT" || { flock -u 9; return 1; }
  flock -u 9
  return 0
}
