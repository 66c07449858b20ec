#!/usr/bin/env bash
# The Debian packages end to end, as root on a throw-away machine (CI): cpack in the host-only
# build tree (gpuspec) and, when given, the CUDA build tree (gpuspec-cuda13 and the tarball);
# lintian with no errors; dpkg -i; the installed commands; dpkg -r; nothing left behind.
#   package_test.sh SOURCE_DIR HOST_BUILD_DIR [CUDA_BUILD_DIR] [OUT_DIR]
# Then the operator's path (clean_root_test.sh): both packages from a local apt repository
# (packaging/apt-repository.sh) into clean Debian 12 and 13 roots made by mmdebstrap, used as
# nobody, purged; and a second build of the host tree at a later commit (a clone with one more,
# empty commit; ccache makes its compile cheap), whose package apt-get upgrade installs over this one.
# The roots are kept in HOST_BUILD_DIR/package-roots (GPUSPEC_PACKAGE_ROOTS), made once from
# Debian's archive (docs/deploy.md, "The package test", has the times).
# Exit 77 (skipped) when not root or without dpkg, lintian, equivs, mmdebstrap or apt-ftparchive.
#
# gpuspec-cuda13 Depends on NVIDIA's CUDA 13 runtime packages (libcublas-13-0), which no apt
# repository reachable from CI has: the test installs it beside equivs-made stand-ins for exactly
# the names its Depends lists, labelled "TEST STAND-IN" in their descriptions and removed at the
# end. The libraries themselves come from the CUDA toolkit that built the tree, which the loader
# finds through ldconfig's cache (the runfile install adds /usr/local/cuda/lib to ld.so.conf.d)
# or, failing that, LD_LIBRARY_PATH set here to the toolkit's library folder.
set -euo pipefail
src="$(cd "$1" && pwd)" host_build="$(cd "$2" && pwd)"
cuda_build="${3:-}" out="${4:-$host_build/package-test}"
if [ -n "$cuda_build" ] && [ -d "$cuda_build" ]; then cuda_build="$(cd "$cuda_build" && pwd)"; fi
skip() { echo "package_test: skipped: $*"; exit 77; }
fail() { echo "package_test: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "not root (dpkg -i needs it)"
for tool in dpkg dpkg-deb cpack lintian equivs-build man mmdebstrap apt-ftparchive git; do
  command -v "$tool" >/dev/null || skip "no $tool (scripts/install-deps.sh --package installs it)"
done
[ -x "$host_build/cli/gpuspec" ] || skip "$host_build/cli/gpuspec is not built"
# The version the last build stamped (cmake/GpuspecBuildStamp.cmake), which cpack takes too.
version=$(cat "$host_build/gpuspec-version.txt")
start=$(date +%s)
rm -rf "$out" && mkdir -p "$out"
cd "$out"

installed=()
cleanup() {
  # Whatever the outcome, leave the machine as it was.
  if [ "${#installed[@]}" -gt 0 ]; then dpkg -r "${installed[@]}" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

lint() { # lintian errors and warnings fail (the overrides in packaging/lintian say why each is)
  lintian --fail-on error,warning "$1" >"$out/lintian-$(basename "$1").txt" 2>&1 ||
    fail "lintian errors or warnings on $1: $(grep -E '^[EW]:' "$out/lintian-$(basename "$1").txt" | head -5)"
  cat "$out/lintian-$(basename "$1").txt"
}
# description CONTROL-FIELD-OUTPUT: the Description's lines start with a space, never ";" (a CMake
# list written as text), and its first line is the package's own summary.
check_description() {
  local deb=$1 want=$2 desc
  desc=$(dpkg-deb -f "$deb" Description)
  [ "$(head -1 <<<"$desc")" = "$want" ] || fail "$deb: summary '$(head -1 <<<"$desc")', expected '$want'"
  grep -q '^ *;' <<<"$desc" && fail "$deb: a description line starts with ';': $(grep -m1 '^ *;' <<<"$desc")"
  return 0
}
expect_exit() { # expect_exit CODE COMMAND...
  local want=$1 rc=0
  shift
  "$@" >"$out/last.out" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, expected $want: $(tail -3 "$out/last.out")"
}

# --- gpuspec: the host tools ---
(cd "$host_build" && cpack -G DEB -B "$out/host" >"$out/cpack-host.log") || fail "cpack in $host_build: $(tail -5 "$out/cpack-host.log")"
host_deb=$(ls "$out"/host/gpuspec_"$version"_*.deb)
lint "$host_deb"
check_description "$host_deb" "GPU server benchmark and bottleneck diagnosis: host tools"
# The licence, machine-readable, and the scripts docs/deploy.md runs keep their run bit.
dpkg-deb --fsys-tarfile "$host_deb" | tar -xO ./usr/share/doc/gpuspec/copyright | grep -x 'License: Apache-2.0' >/dev/null ||
  fail "the copyright file names no 'License: Apache-2.0'"
for script in gpuspec-job.sh gpuspec-node-health.sh gpuspec-idle-sweep.sh; do
  dpkg-deb -c "$host_deb" | grep -E "^-rwxr-xr-x .*/kubernetes/base/$script\$" >/dev/null ||
    fail "$script is not installed executable: $(dpkg-deb -c "$host_deb" | grep "$script")"
done
dpkg-deb -f "$host_deb" Depends | grep -qiE 'cuda|nvidia|libnccl|libcublas' &&
  fail "gpuspec Depends on CUDA or the driver: $(dpkg-deb -f "$host_deb" Depends)"
# libc6, libstdc++6 and libgcc-s1 alone (fmt, simdjson, SQLite and zstd are linked in:
# cmake/GpuspecStaticLibraries.cmake), names every Debian and Ubuntu release has.
host_depends=$(dpkg-deb -f "$host_deb" Depends)
echo "package_test: gpuspec Depends: $host_depends"
others=$(tr ',' '\n' <<<"$host_depends" | sed 's/(.*//; s/ //g' | grep -vxE 'libc6|libstdc\+\+6|libgcc-s1' || true)
[ -z "$others" ] || fail "gpuspec depends on more than libc6, libstdc++6 and libgcc-s1: $others"
# The systemd timer and service (deploy/systemd), installed disabled: no maintainer script, and
# systemd-analyze verify (where systemd is installed) in the package's own tree, with the
# targets they name copied from this machine; a warning fails as an error does.
# (grep >/dev/null, not -q: an early exit would kill dpkg-deb with SIGPIPE, which pipefail sees.)
dpkg-deb -c "$host_deb" | grep '/usr/lib/systemd/system/gpuspec-health.timer$' >/dev/null ||
  fail "the gpuspec package has no gpuspec-health.timer"
dpkg-deb -c "$host_deb" | grep '/usr/share/man/man1/gpuspec-health.1.gz$' >/dev/null ||
  fail "the gpuspec package has no gpuspec-health(1), which the units' Documentation names"
dpkg-deb --ctrl-tarfile "$host_deb" | tar -t | grep -E 'postinst|prerm|postrm' >/dev/null &&
  fail "the gpuspec package has a maintainer script (the units are installed disabled)"
if command -v systemd-analyze >/dev/null && [ -d /lib/systemd/system ]; then
  units="$out/units-root"
  rm -rf "$units" && mkdir -p "$units" && dpkg-deb -x "$host_deb" "$units"
  cp -a /lib/systemd/system/*.target "$units/usr/lib/systemd/system/"
  systemd-analyze verify --man=no --root="$units" "$units"/usr/lib/systemd/system/gpuspec-health.{service,timer} \
    >"$out/systemd-verify.txt" 2>&1 || fail "systemd-analyze verify: $(cat "$out/systemd-verify.txt")"
  [ ! -s "$out/systemd-verify.txt" ] || fail "systemd-analyze verify warns: $(cat "$out/systemd-verify.txt")"
  rm -rf "$units"
else
  echo "package_test: no systemd-analyze here: the units are not verified"
fi
dpkg -i "$host_deb" >/dev/null || fail "dpkg -i $host_deb"
installed=(gpuspec)
dpkg -L gpuspec | sort >"$out/files-gpuspec.txt"

[ "$(/usr/bin/gpuspec --version | head -1)" = "gpuspec $version" ] || fail "gpuspec --version's first line: $(/usr/bin/gpuspec --version | head -1)"
expect_exit 0 gpuspec check "$src/tests/fixtures/check/healthy.json"
expect_exit 2 gpuspec check "$src/tests/fixtures/check/degraded-pcie-link-degraded.json"
grep -q GPUSPEC-PCIE-LINK-DEGRADED "$out/last.out" || fail "gpuspec check names no GPUSPEC-PCIE-LINK-DEGRADED"
expect_exit 0 gpuspec specs --check
man -w gpuspec >/dev/null 2>&1 || fail "man gpuspec: no manual page installed"
MANPAGER="cat" man gpuspec >/dev/null 2>&1 || fail "man gpuspec could not format the page"
# Without gpuspec-cuda13: no benchmarks, saying which package brings them, exit 3.
expect_exit 3 gpuspec list
grep -q 'gpuspec-cuda13' "$out/last.out" || fail "gpuspec list does not name gpuspec-cuda13: $(cat "$out/last.out")"
expect_exit 3 env GPUSPEC_NVML_LIBRARY=/nonexistent gpuspec run -o "$out/run.json"

# --- gpuspec-mpi: the multi-node launcher, where the build has it (GPUSPEC_MPI=ON) ---
# Its own package: it links the system's OpenMPI, whose package name differs between releases,
# and gpuspec must not depend on it. It depends on gpuspec of the same version.
mpi_deb=$(ls "$out"/host/gpuspec-mpi_"$version"_*.deb 2>/dev/null || true)
if [ -n "$mpi_deb" ]; then
  lint "$mpi_deb"
  check_description "$mpi_deb" "GPU server benchmark and bottleneck diagnosis: multi-node launcher"
  mpi_depends=$(dpkg-deb -f "$mpi_deb" Depends)
  echo "package_test: gpuspec-mpi Depends: $mpi_depends"
  grep -q "gpuspec (= $version)" <<<"$mpi_depends" || fail "gpuspec-mpi does not depend on gpuspec (= $version)"
  grep -q "libopenmpi" <<<"$mpi_depends" || fail "gpuspec-mpi names no OpenMPI package: $mpi_depends"
  dpkg -i "$mpi_deb" >/dev/null || fail "dpkg -i $mpi_deb"
  installed=(gpuspec-mpi "${installed[@]}")
  dpkg -L gpuspec-mpi | sort >"$out/files-gpuspec-mpi.txt"
  expect_exit 0 gpuspec-mpi --version
  grep -qx "gpuspec-mpi $version" "$out/last.out" || fail "gpuspec-mpi --version: $(head -1 "$out/last.out")"
  man -w gpuspec-mpi >/dev/null 2>&1 || fail "man gpuspec-mpi: no manual page installed"
fi

# --- gpuspec-cuda13 and the tarball ---
if [ -n "$cuda_build" ] && [ -x "$cuda_build/cli/gpuspec" ]; then
  (cd "$cuda_build" && cpack -B "$out/cuda" >"$out/cpack-cuda.log") || fail "cpack in $cuda_build: $(tail -5 "$out/cpack-cuda.log")"
  cuda_deb=$(ls "$out"/cuda/gpuspec-cuda13_"$version"_*.deb)
  lint "$cuda_deb"
  check_description "$cuda_deb" "GPU server benchmark and bottleneck diagnosis: CUDA 13 benchmarks"
  depends=$(dpkg-deb -f "$cuda_deb" Depends)
  echo "package_test: gpuspec-cuda13 Depends: $depends"
  echo "$depends" | grep -q "gpuspec (= $version)" || fail "gpuspec-cuda13 does not depend on gpuspec (= $version)"
  echo "$depends" | grep -q 'libcublas-13-0' || fail "gpuspec-cuda13 does not depend on libcublas-13-0"
  echo "$depends" | grep -qiE 'nvidia-driver|cuda-drivers|libnvidia|libcuda' && fail "gpuspec-cuda13 depends on the driver: $depends"
  readelf -d "$cuda_build/cli/gpuspec" | grep -q 'NEEDED.*libcuda\.so' && fail "the CUDA build links libcuda (the driver)"
  # Stand-ins for the CUDA packages it names (everything of the Depends that dpkg does not know).
  for pkg in $(echo "$depends" | tr ',' '\n' | sed 's/(.*//; s/|.*//' | tr -d ' '); do
    # dpkg-query -W, not dpkg -s: on a multiarch machine (install-deps --aarch64 adds arm64)
    # dpkg -s refuses a name with two installed instances, libc6 and libc6:arm64 say.
    dpkg-query -W -f='${db:Status-Status}\n' "$pkg" 2>/dev/null | grep -qx installed && continue
    [ "$pkg" = gpuspec ] && continue
    printf 'Section: misc\nPriority: optional\nStandards-Version: 4.6.2\nPackage: %s\nVersion: 0.0-gpuspec-test-stand-in\nDescription: TEST STAND-IN for %s (gpuspec tests/package; not the real package)\n Installed by package_test.sh so that gpuspec-cuda13 installs without NVIDIA'"'"'s apt\n repository; the libraries come from the CUDA toolkit on this machine. Removed after.\n' "$pkg" "$pkg" >"$out/$pkg.equivs"
    (cd "$out" && equivs-build "$pkg.equivs" >"$out/equivs-$pkg.log" 2>&1) || fail "equivs-build $pkg"
    dpkg -i "$out/${pkg}_0.0-gpuspec-test-stand-in_all.deb" >/dev/null || fail "dpkg -i the stand-in $pkg"
    installed=("$pkg" "${installed[@]}")
  done
  dpkg -i "$cuda_deb" >/dev/null || fail "dpkg -i $cuda_deb"
  installed=(gpuspec-cuda13 "${installed[@]}")
  dpkg -L gpuspec-cuda13 | sort >"$out/files-gpuspec-cuda13.txt"
  if ! ldconfig -p | grep 'libcublas\.so\.13 ' >/dev/null; then
    LD_LIBRARY_PATH="$(dirname "$(sed -n 's/^CUDA_cublas_LIBRARY:FILEPATH=//p' "$cuda_build/CMakeCache.txt")")"
    export LD_LIBRARY_PATH
  fi
  # Through the host gpuspec, which execs /usr/libexec/gpuspec/gpuspec-cuda13.
  expect_exit 0 gpuspec list
  grep -q 'memory.stream.triad' "$out/last.out" || fail "gpuspec list through gpuspec-cuda13 lists no memory.stream.triad"
  # The tarball: the CUDA build's install tree, relocatable.
  tgz=$(ls "$out"/cuda/gpuspec-"$version"-*.tar.gz)
  mkdir -p "$out/tarball" && tar -xzf "$tgz" -C "$out/tarball"
  tar_bin=$(find "$out/tarball" -path '*/bin/gpuspec' | head -1)
  [ -n "$tar_bin" ] || fail "the tarball has no bin/gpuspec"
  expect_exit 0 "$tar_bin" specs
fi

# --- dpkg -r: nothing left ---
dpkg -r "${installed[@]}" >/dev/null || fail "dpkg -r ${installed[*]}"
installed=()
for list in "$out"/files-*.txt; do
  while IFS= read -r path; do
    [ -f "$path" ] || [ -L "$path" ] && fail "$path is left after dpkg -r"
  done <"$list"
done
[ ! -e /usr/share/gpuspec ] || fail "/usr/share/gpuspec is left after dpkg -r"
[ ! -e /usr/libexec/gpuspec ] || fail "/usr/libexec/gpuspec is left after dpkg -r"
# --- one apt source: clean Debian 12 and 13 roots, and an upgrade to a later commit ---
roots_start=$(date +%s)
bash "$src/packaging/apt-repository.sh" "$out/apt-repository" "$host_deb" ${cuda_deb:+"$cuda_deb"} >/dev/null
mkdir -p "$out/stand-ins"
if [ -n "${cuda_deb:-}" ] && [ -n "$(ls "$out"/*_0.0-gpuspec-test-stand-in_all.deb 2>/dev/null)" ]; then
  bash "$src/packaging/apt-repository.sh" "$out/stand-ins" "$out"/*_0.0-gpuspec-test-stand-in_all.deb >/dev/null
fi
# The later commit: a clone of this checkout's HEAD with one empty commit more, built host-only
# as this tree was (its build type, -Werror, unity batches, simdjson source), in the same folder
# of the clone as this build's in the checkout: CCACHE_BASEDIR (the source folder) then makes
# both trees' compile commands alike, and every object a cache hit. .deps is linked (nvml.h,
# fmt's and simdjson's sources).
later_src="$out/later-src"
case "$host_build" in
"$src"/*) later_build="$later_src/${host_build#"$src"/}" ;;
*) later_build="$later_src/build/host-only" ;;
esac
git clone --quiet --shared "$src" "$later_src"
git -C "$later_src" -c user.name=package_test -c user.email=package-test@gpuspec.invalid \
  commit --quiet --allow-empty -m "package_test: a later commit"
[ -e "$src/.deps" ] && ln -s "$(cd "$src/.deps" && pwd -P)" "$later_src/.deps"
cached() { sed -n "s/^$1:[A-Z]*=//p" "$host_build/CMakeCache.txt"; }
in_later() { case "$1" in "$src"/*) echo "$later_src/${1#"$src"/}" ;; *) echo "$1" ;; esac; }
simdjson_source=$(in_later "$(cached GPUSPEC_SIMDJSON_SOURCE)")
fmt_source=$(in_later "$(cached GPUSPEC_FMT_SOURCE_DIR)")
(cmake -S "$later_src" -B "$later_build" -G Ninja -DCMAKE_BUILD_TYPE="$(cached CMAKE_BUILD_TYPE)" \
  -DGPUSPEC_CUDA=OFF -DGPUSPEC_BUILD_TESTS=OFF -DGPUSPEC_WERROR="$(cached GPUSPEC_WERROR)" \
  -DGPUSPEC_UNITY="$(cached GPUSPEC_UNITY)" -DGPUSPEC_SANITIZE="$(cached GPUSPEC_SANITIZE)" \
  -DGPUSPEC_SIMDJSON_SOURCE="$simdjson_source" -DGPUSPEC_FMT_SOURCE_DIR="$fmt_source" &&
  cmake --build "$later_build" && cd "$later_build" && cpack -G DEB -B "$out/later") \
  >"$out/later-build.log" 2>&1 || fail "the later commit's build: $(tail -5 "$out/later-build.log")"
later_deb=$(ls "$out"/later/gpuspec_*.deb)
later_version=$(dpkg-deb -f "$later_deb" Version)
dpkg --compare-versions "$later_version" gt "$version" ||
  fail "the later commit's package, $later_version, does not order above this one's, $version"
bash "$src/packaging/apt-repository.sh" "$out/apt-repository-later" "$later_deb" >/dev/null
echo "package_test: the later commit's gpuspec $later_version built in $(($(date +%s) - roots_start)) s"
roots="${GPUSPEC_PACKAGE_ROOTS:-$host_build/package-roots}"
bash "$src/tests/package/clean_root_test.sh" bookworm "$roots" "$out/apt-repository" \
  "$out/stand-ins" "$src" "$out/roots" "$out/apt-repository-later"
bash "$src/tests/package/clean_root_test.sh" trixie "$roots" "$out/apt-repository" \
  "$out/stand-ins" "$src" "$out/roots"
echo "package_test: the apt repository, the clean roots and the upgrade in $(($(date +%s) - roots_start)) s"

echo "package_test: ok in $(($(date +%s) - start)) s"
