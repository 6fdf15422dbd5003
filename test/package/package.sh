#!/usr/bin/env bash
# The installed txc as a user gets it (docs/cmake.md; ctest package-*):
#
#   package.sh install BUILD SRC WORK  cmake --install into WORK/prefix, then
#       samples/cmake configured against it (CMAKE_PREFIX_PATH) with Ninja
#       and with Unix Makefiles, built, and its program run
#   package.sh deps BUILD SRC WORK     what reruns txc_add_library's compile
#       (test/package/deps, with both generators): touching the program or
#       its weights file, changing an argument; not touching anything else
#   package.sh cross BUILD SRC WORK    samples/cmake cross-compiled for
#       aarch64 (test/package/aarch64-toolchain.cmake) and run under qemu
#   package.sh deb BUILD SRC WORK      cpack -G DEB, the package's contents
#       and dependencies listed and checked; as root (CI), also installed
#       with apt-get, samples/cmake built against /usr, and removed
#
# Each step prints what it checks; the first failure exits 1.
set -euo pipefail
mode=$1 build=$(realpath "$2") src=$(realpath "$3") work=$4
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

install_prefix() {
  step "cmake --install $build --prefix $work/prefix"
  cmake --install "$build" --prefix "$work/prefix" > install.log
  for file in bin/txc bin/txc-difftest bin/txc-callcheck include/txc_runtime.h \
      include/txc_runtime.hpp \
      lib/cmake/txc/txcConfig.cmake lib/cmake/txc/txcConfigVersion.cmake \
      lib/cmake/txc/txcTargets.cmake lib/cmake/txc/TxcAddLibrary.cmake \
      share/doc/txc/README.md share/doc/txc/docs/cmake.md \
      share/doc/txc/samples/cmake/CMakeLists.txt \
      share/doc/txc/samples/linear/linear.json; do
    [ -f "prefix/$file" ] || fail "the install has no $file"
  done
  # The installed txc runs from the prefix (its RUNPATH finds libMLIR).
  "$work/prefix/bin/txc" --version | grep -q '^txc ' ||
    fail "the installed txc does not run"
}

# configure_and_build NAME SOURCE GENERATOR [cmake args...]
configure_and_build() {
  local name=$1 source=$2 generator=$3
  shift 3
  step "$name: configure $source ($generator) and build"
  cmake -S "$source" -B "$name" -G "$generator" \
    -DCMAKE_PREFIX_PATH="$work/prefix" "$@" > "$name.configure.log" ||
    { cat "$name.configure.log"; fail "$name: configure"; }
  cmake --build "$name" > "$name.build.log" 2>&1 ||
    { cat "$name.build.log"; fail "$name: build"; }
}

# The samples/cmake program prints the quick start's rows for B = 5.
check_linear_output() {
  local output=$1
  grep -q 'Y = X\*W + b with B = 5, Y has shape \[5, 3\]:' <<< "$output" ||
    fail "unexpected output: $output"
  grep -q 'input .X. dimension 1 must be 4, got 7' <<< "$output" ||
    fail "unexpected output: $output"
}

# samples/cmake's variants program: B=1 and B=5 take their variants
# (SPECIALIZE), B=3 the generic code; Y[0] is b.
check_variants_output() {
  local output=$1
  for line in 'B=1: rc 0, variant 1, Y\[0\] = \[1 2 3\]' \
      'B=5: rc 0, variant 2, Y\[0\] = \[1 2 3\]' \
      'B=3: rc 0, variant 0, Y\[0\] = \[1 2 3\]'; do
    grep -q "^$line\$" <<< "$output" || fail "unexpected output: $output"
  done
}

# A copy of samples/cmake and samples/linear, as installed.
sample_source() {
  echo "$work/prefix/share/doc/txc/samples/cmake"
}

run_install() {
  install_prefix
  for generator in Ninja "Unix Makefiles"; do
    local name=sample-${generator// /-}
    configure_and_build "$name" "$(sample_source)" "$generator"
    check_linear_output "$("$name/linear_c" 5)"
    check_linear_output "$("$name/linear_cxx" 5)"
    check_variants_output "$("$name/linear_variants_c")"
    echo "$name: linear_c, linear_cxx and linear_variants_c ok"
  done
}

# build NAME: builds and prints the log; says whether txc compiled.
rebuild() {
  cmake --build "$1" > "$1.rebuild.log" 2>&1 ||
    { cat "$1.rebuild.log"; fail "$1: rebuild"; }
  if grep -q 'txc: compiling' "$1.rebuild.log"; then echo compiled; else
    echo "not compiled"; fi
}

expect_rebuild() {
  local name=$1 what=$2 expected=$3
  local got
  got=$(rebuild "$name")
  [ "$got" = "$expected" ] || fail "$name: after $what, txc was $got"
  echo "$name: after $what: $got"
}

write_weights() {
  /usr/bin/python3 -c "import numpy, sys; numpy.save(sys.argv[1], \
numpy.array([$2], dtype=numpy.float32))" "$1"
}

run_deps() {
  install_prefix
  for generator in Ninja "Unix Makefiles"; do
    local name=deps-${generator// /-}
    rm -rf "$name-src" && cp -r "$src/test/package/deps" "$name-src"
    write_weights "$name-src/w.npy" "1, 2, 3, 4"
    configure_and_build "$name" "$name-src" "$generator" -DTXC_TEST_OPT=2
    [ "$("$name/scale_main")" = "W = 1 2 3 4" ] || fail "$name: scale_main"
    [ -f "$(cat "$name/manifest-path.txt")" ] || fail "$name: no manifest"
    sleep 1
    expect_rebuild "$name" "nothing changed" "not compiled"
    touch "$name-src/main.c"
    expect_rebuild "$name" "touching main.c" "not compiled"
    touch "$name-src/scale.json"
    expect_rebuild "$name" "touching the program" compiled
    expect_rebuild "$name" "that rebuild" "not compiled"
    sleep 1
    write_weights "$name-src/w.npy" "5, 6, 7, 8"
    expect_rebuild "$name" "rewriting the weights file" compiled
    [ "$("$name/scale_main")" = "W = 5 6 7 8" ] ||
      fail "$name: the new weights are not in the program"
    cmake "$name" -DTXC_TEST_OPT=2 > /dev/null
    expect_rebuild "$name" "configuring with the same OPT" "not compiled"
    cmake "$name" -DTXC_TEST_OPT=0 > /dev/null
    expect_rebuild "$name" "configuring with another OPT" compiled
    # SPECIALIZE: each item one --specialize; another list recompiles.
    cmake "$name" -DTXC_TEST_SPECIALIZE=N=1 > /dev/null
    expect_rebuild "$name" "adding SPECIALIZE N=1" compiled
    grep -q '"bindings"' "$(cat "$name/manifest-path.txt")" ||
      fail "$name: SPECIALIZE N=1 made no variant"
    cmake "$name" -DTXC_TEST_SPECIALIZE=N=1 > /dev/null
    expect_rebuild "$name" "configuring with the same SPECIALIZE" "not compiled"
    cmake "$name" "-DTXC_TEST_SPECIALIZE=N=1;N in {2,4}" > /dev/null
    expect_rebuild "$name" "SPECIALIZE N=1 \"N in {2,4}\"" compiled
    [ "$("$name/scale_main")" = "W = 5 6 7 8" ] || fail "$name: scale_main"
    if [ "$(uname -m)" = x86_64 ]; then
      # CPU: a list of levels, one --cpu x86-64-v2,x86-64-v3.
      cmake "$name" -DTXC_TEST_SPECIALIZE= \
        "-DTXC_TEST_CPU=x86-64-v2;x86-64-v3" > /dev/null
      expect_rebuild "$name" "CPU x86-64-v2 x86-64-v3" compiled
      grep -q '"cpus"' "$(cat "$name/manifest-path.txt")" ||
        fail "$name: CPU x86-64-v2 x86-64-v3 made no CPU list"
      [ "$("$name/scale_main")" = "W = 5 6 7 8" ] || fail "$name: scale_main"
    fi
  done
}

run_cross() {
  install_prefix
  local name=cross-aarch64
  configure_and_build "$name" "$(sample_source)" Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$src/test/package/aarch64-toolchain.cmake"
  file -L "$name/linear_c" | grep -q 'ARM aarch64' ||
    fail "$name/linear_c is not an aarch64 program: $(file -L "$name/linear_c")"
  local object
  object=$(find "$name" -name linear.o)
  file "$object" | grep -q 'ARM aarch64' || fail "$object is not aarch64"
  for program in linear_c linear_cxx; do
    check_linear_output \
      "$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$name/$program" 5)"
  done
  check_variants_output \
    "$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$name/linear_variants_c")"
  echo "$name: linear_c, linear_cxx and linear_variants_c under qemu-aarch64 ok"
}

run_deb() {
  step "cpack -G DEB"
  (cd "$build" && cpack -G DEB -B "$work/deb" > "$work/cpack.log" 2>&1) ||
    { cat cpack.log; fail "cpack"; }
  local deb
  deb=$(ls "$work"/deb/txc_*.deb)
  dpkg-deb -c "$deb" | awk '{print $6}' | sort > contents.txt
  echo "$(wc -l < contents.txt) entries in $(basename "$deb")"
  for file in ./usr/bin/txc ./usr/bin/txc-difftest ./usr/bin/txc-callcheck \
      ./usr/include/txc_runtime.h ./usr/include/txc_runtime.hpp \
      ./usr/lib/cmake/txc/txcConfig.cmake \
      ./usr/lib/cmake/txc/TxcAddLibrary.cmake \
      ./usr/share/doc/txc/docs/cmake.md \
      ./usr/share/doc/txc/samples/cmake/CMakeLists.txt; do
    grep -qx "$file" contents.txt || fail "the package has no $file"
  done
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "Depends: $depends"
  for package in libllvm19 libmlir-19 libc6; do
    grep -q "$package" <<< "$depends" || fail "the package does not depend on $package"
  done
  if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
    echo "not root: the package is not installed"
    return
  fi
  step "apt-get install $deb"
  if dpkg-query -W -f='${Status}' txc 2>/dev/null | grep -q "ok installed"; then
    echo "a txc package is installed already: not replaced"
    return
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q -o DPkg::Lock::Timeout=600 "$deb" > apt.log 2>&1 ||
    { cat apt.log; fail "apt-get install"; }
  local status=0
  (
    cmake -S /usr/share/doc/txc/samples/cmake -B sample-usr -G Ninja \
      > sample-usr.configure.log &&
      cmake --build sample-usr > sample-usr.build.log 2>&1 &&
      check_linear_output "$(sample-usr/linear_c 5)" &&
      check_linear_output "$(sample-usr/linear_cxx 5)"
  ) || status=1
  apt-get remove -y -q -o DPkg::Lock::Timeout=600 txc > remove.log 2>&1 ||
    { cat remove.log; fail "apt-get remove"; }
  [ $status = 0 ] || { cat sample-usr.*.log; fail "samples/cmake against /usr"; }
  echo "installed with apt-get, samples/cmake built against /usr and run, removed"
}

case $mode in
install) run_install ;;
deps) run_deps ;;
cross) run_cross ;;
deb) run_deb ;;
*) fail "unknown mode $mode" ;;
esac
echo "package.sh $mode: ok"
