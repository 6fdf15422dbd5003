#!/usr/bin/env bash
# Installs every Debian 12 (bookworm) package txc needs. Idempotent and quiet
# when everything is already installed.
#
#   scripts/install-deps.sh               build + test dependencies
#   scripts/install-deps.sh --bench-build also what building the benchmarks
#                                         needs (OpenBLAS, Eigen, oneDNN and
#                                         the OpenCL its CMake config looks
#                                         for, Google Benchmark); CI builds
#                                         them (scripts/test.sh)
#   scripts/install-deps.sh --bench       also the peers that only running
#                                         them needs (hyperfine; PyTorch is
#                                         a test dependency: the model zoo)
#
# libonnx-dev (with libprotobuf-dev) is `txc import onnx`'s ONNX library;
# protoc encodes the ONNX models of test/lit/import; PyTorch and
# torchvision export the model zoo of test/models; python3-onnx reads the
# ONNX node tests (test/onnx/node_tests.py) and writes the import tests' models.
set -euo pipefail

packages=(
  cmake ninja-build g++ gcc make ccache
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libssl-dev
  python3 python3-jsonschema python3-numpy
  clang-19 libclang-rt-19-dev   # the libFuzzer harnesses (scripts/fuzz.sh)
  libonnx-dev libprotobuf-dev protobuf-compiler
  python3-torch python3-torchvision
  python3-onnx   # test/onnx/node_tests.py and the lit import tests build and read models
  libonnx-testdata   # ONNX's backend node tests that test/onnx/node_tests.py runs (ctest onnx-node-tests)
  # Cross-compiled objects linked and run under emulation (test/e2e/cross,
  # test/package): aarch64 with Debian's cross gcc under qemu-aarch64, x86-64
  # CPU levels under qemu-x86_64 -cpu; dpkg-dev's dpkg-shlibdeps gives the
  # .deb its dependencies (cpack -G DEB).
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
  qemu-user dpkg-dev file
)
# Debian's oneDNN CMake config (dnnl-config.cmake) requires OpenCL: without
# its headers and loader, configuring the benchmarks fails with "Could NOT
# find OpenCL".
bench_build=(libopenblas-dev libeigen3-dev libdnnl-dev libbenchmark-dev
             ocl-icd-opencl-dev opencl-headers)
case "${1:-}" in
--bench-build) packages+=("${bench_build[@]}") ;;
--bench) packages+=("${bench_build[@]}" hyperfine) ;;
"") ;;
*) echo "usage: $0 [--bench-build | --bench]" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
