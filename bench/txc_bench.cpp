//===- txc_bench.cpp - txc-compiled kernels against the libraries ---------===//
//
// Google Benchmark. Every kernel runs single-threaded in the same process
// as its peers: OpenBLAS (cblas_sgemm), Eigen, oneDNN, and a plain C loop.
// Each result also reports GFLOPS or GB/s as a counter; bench/report.py
// turns the JSON output into the ratio tables of docs/performance.md.
//
//===----------------------------------------------------------------------===//
#include "attention.h"
#include "cnn.h"
#include "eltwise_chain.h"
#include "layer_norm_4096x1024.h"
#include "linear.h"
#include "linear_512x1024x1024.h"
#include "linear_64x256x256.h"
#include "linear_dyn_1024x1024.h"
#include "linear_dyn_256x256.h"
#include "linear_t_dyn_1000x1280.h"
#include "sgemm_1024.h"
#include "sgemm_256.h"
#include "sgemm_512.h"
#include "softmax_4096x1024.h"

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.hpp>
#include <Eigen/Core>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using EntryPoint = int32_t (*)(const txc_tensor *, int64_t, txc_tensor *,
                               int64_t, txc_status *);
using WorkspaceEntryPoint = int32_t (*)(const txc_tensor *, int64_t,
                                        txc_tensor *, int64_t, txc_status *,
                                        void *, size_t);

/// A program's two run entry points and the workspace it needs.
struct TxcProgram {
  EntryPoint run;
  WorkspaceEntryPoint runWithWorkspace;
  uint64_t workspaceBytes;
};
#define TXC_PROGRAM(prefix, PREFIX)                                            \
  TxcProgram { prefix##_run, prefix##_run_with_workspace,                     \
               PREFIX##_WORKSPACE_BYTES }

/// 64-byte aligned float storage filled with reproducible values.
struct Buffer {
  explicit Buffer(size_t count, float value = NAN) : count(count) {
    data = static_cast<float *>(std::aligned_alloc(64, (count * 4 + 63) / 64 * 64));
    std::mt19937 rng{unsigned(count)};
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < count; ++i)
      data[i] = std::isnan(value) ? dist(rng) : value;
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer &) = delete;
  float *data;
  size_t count;
};

int64_t product(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

txc_tensor tensor(float *data, const std::vector<int64_t> &dims) {
  txc_tensor t{};
  t.data = data;
  t.dtype = TXC_DTYPE_F32;
  t.rank = int32_t(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    t.dims[i] = dims[i];
  t.size_bytes = product(dims) * 4;
  return t;
}

void call(EntryPoint entry, std::vector<txc_tensor> &inputs,
          std::vector<txc_tensor> &outputs) {
  txc_status status;
  if (entry(inputs.data(), int64_t(inputs.size()), outputs.data(),
            int64_t(outputs.size()), &status) != 0)
    throw std::runtime_error("txc call failed");
}

/// Registers a benchmark timed in wall-clock time, so that its counters
/// (computed from the time) and the time the report divides agree, and match
/// bench/torch_bench.py's wall-clock timing.
template <class Fn, class... Args>
void add(const std::string &name, Fn fn, Args... args) {
  benchmark::RegisterBenchmark(name.c_str(), fn, args...)->UseRealTime();
}

void setFlops(benchmark::State &state, double flopsPerIteration) {
  state.counters["GFLOPS"] = benchmark::Counter(
      flopsPerIteration, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}

/// Bytes read plus bytes written per iteration.
void setBandwidth(benchmark::State &state, double bytesPerIteration) {
  state.counters["GB/s"] = benchmark::Counter(
      bytesPerIteration, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}

//===----------------------------------------------------------------------===//
// Matmul and linear layers
//===----------------------------------------------------------------------===//

struct Linear {
  int64_t b, k, n;
  bool bias;
  /// W is [N][K] (the `linear` op, PyTorch's layout) instead of [K][N].
  bool weightNByK = false;
};

double linearFlops(const Linear &s) { return 2.0 * s.b * s.k * s.n; }

/// With `ownWorkspace`, <p>_run, which allocates the workspace on every
/// call; otherwise <p>_run_with_workspace with one allocated up front, as a
/// caller that runs the program repeatedly would.
void runTxcLinear(benchmark::State &state, TxcProgram program, Linear s,
                  bool ownWorkspace) {
  Buffer x(s.b * s.k), w(s.k * s.n), bias(s.n), y(s.b * s.n, 0);
  Buffer workspace((program.workspaceBytes + 3) / 4);
  std::vector<txc_tensor> in = {tensor(x.data, {s.b, s.k}),
                                s.weightNByK ? tensor(w.data, {s.n, s.k})
                                             : tensor(w.data, {s.k, s.n})};
  if (s.bias)
    in.push_back(tensor(bias.data, {s.n}));
  std::vector<txc_tensor> out = {tensor(y.data, {s.b, s.n})};
  txc_status status;
  for (auto _ : state) {
    int32_t rc = ownWorkspace
                     ? program.run(in.data(), int64_t(in.size()), out.data(),
                                   1, &status)
                     : program.runWithWorkspace(
                           in.data(), int64_t(in.size()), out.data(), 1,
                           &status, workspace.data, program.workspaceBytes);
    if (rc != 0)
      throw std::runtime_error("txc call failed");
    benchmark::DoNotOptimize(y.data);
  }
  setFlops(state, linearFlops(s));
}

void runOpenBlas(benchmark::State &state, Linear s) {
  openblas_set_num_threads(1);
  Buffer x(s.b * s.k), w(s.k * s.n), bias(s.n), y(s.b * s.n, 0);
  for (auto _ : state) {
    float beta = 0;
    if (s.bias) {
      for (int64_t i = 0; i < s.b; ++i)
        std::memcpy(y.data + i * s.n, bias.data, s.n * 4);
      beta = 1;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.b), int(s.n),
                int(s.k), 1.0f, x.data, int(s.k), w.data, int(s.n), beta,
                y.data, int(s.n));
    benchmark::DoNotOptimize(y.data);
  }
  setFlops(state, linearFlops(s));
}

void runEigen(benchmark::State &state, Linear s) {
  using Matrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Buffer x(s.b * s.k), w(s.k * s.n), bias(s.n), y(s.b * s.n, 0);
  Eigen::Map<Matrix> X(x.data, s.b, s.k), W(w.data, s.k, s.n),
      Y(y.data, s.b, s.n);
  Eigen::Map<Eigen::RowVectorXf> B(bias.data, s.n);
  for (auto _ : state) {
    if (s.bias)
      Y.noalias() = (X * W).rowwise() + B;
    else
      Y.noalias() = X * W;
    benchmark::DoNotOptimize(y.data);
  }
  setFlops(state, linearFlops(s));
}

void runOneDnn(benchmark::State &state, Linear s) {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  Buffer x(s.b * s.k), w(s.k * s.n), bias(s.n), y(s.b * s.n, 0);
  memory::desc xd({s.b, s.k}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc wd({s.k, s.n}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc bd({1, s.n}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc yd({s.b, s.n}, memory::data_type::f32, memory::format_tag::ab);
  // oneDNN 2.x (Debian 12): an op descriptor, then the primitive descriptor.
  matmul::desc desc = s.bias ? matmul::desc(xd, wd, bd, yd)
                             : matmul::desc(xd, wd, yd);
  matmul::primitive_desc pd(desc, eng);
  matmul prim(pd);
  memory xm(xd, eng, x.data), wm(wd, eng, w.data), bm(bd, eng, bias.data),
      ym(yd, eng, y.data);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}};
  if (s.bias)
    args[DNNL_ARG_BIAS] = bm;
  for (auto _ : state) {
    prim.execute(strm, args);
    strm.wait();
    benchmark::DoNotOptimize(y.data);
  }
  setFlops(state, linearFlops(s));
}

/// What a user would write by hand: i-k-j loops the compiler vectorizes.
__attribute__((noinline)) void naiveLinear(const float *x, const float *w,
                                           const float *bias, float *y,
                                           int64_t b, int64_t k, int64_t n) {
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = bias ? bias[j] : 0.0f;
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        y[i * n + j] += x[i * k + p] * w[p * n + j];
  }
}

void runNaive(benchmark::State &state, Linear s) {
  Buffer x(s.b * s.k), w(s.k * s.n), bias(s.n), y(s.b * s.n, 0);
  for (auto _ : state) {
    naiveLinear(x.data, w.data, s.bias ? bias.data : nullptr, y.data, s.b,
                s.k, s.n);
    benchmark::DoNotOptimize(y.data);
  }
  setFlops(state, linearFlops(s));
}

void registerLinear(const std::string &name, Linear s, TxcProgram txc) {
  add(name + "/txc", runTxcLinear, txc, s, /*ownWorkspace=*/false);
  // The same through <p>_run: the workspace is malloc'd per call.
  if (txc.workspaceBytes)
    add(name + "/txc_run", runTxcLinear, txc, s, /*ownWorkspace=*/true);
  add(name + "/openblas", runOpenBlas, s);
  add(name + "/eigen", runEigen, s);
  add(name + "/onednn", runOneDnn, s);
  if (s.b * s.k * s.n <= (int64_t(1) << 28))
    add(name + "/naive_c", runNaive, s);
}

//===----------------------------------------------------------------------===//
// Per-call overhead: samples/linear at B = 1 (4x3 weights), guards included
//===----------------------------------------------------------------------===//

__attribute__((noinline)) void handLinear4x3(const float *x, const float *w,
                                             const float *b, float *y) {
  for (int j = 0; j < 3; ++j) {
    float sum = b[j];
    for (int k = 0; k < 4; ++k)
      sum += x[k] * w[k * 3 + j];
    y[j] = sum;
  }
}

void tinyLinearTxc(benchmark::State &state) {
  Buffer x(4), w(12), b(3), y(3, 0);
  std::vector<txc_tensor> in = {tensor(x.data, {1, 4}), tensor(w.data, {4, 3}),
                                tensor(b.data, {3})};
  std::vector<txc_tensor> out = {tensor(y.data, {1, 3})};
  txc_status status;
  for (auto _ : state) {
    benchmark::DoNotOptimize(linear_run(in.data(), 3, out.data(), 1, &status));
    benchmark::ClobberMemory();
  }
}

void tinyLinearHandC(benchmark::State &state) {
  Buffer x(4), w(12), b(3), y(3, 0);
  for (auto _ : state) {
    handLinear4x3(x.data, w.data, b.data, y.data);
    benchmark::ClobberMemory();
  }
}

//===----------------------------------------------------------------------===//
// A fused elementwise chain over 16M floats: relu(x*1.5 - 0.25)
//===----------------------------------------------------------------------===//

constexpr int64_t kChain = int64_t(1) << 24;

void chainTxc(benchmark::State &state) {
  Buffer x(kChain), y(kChain, 0);
  std::vector<txc_tensor> in = {tensor(x.data, {kChain})};
  std::vector<txc_tensor> out = {tensor(y.data, {kChain})};
  for (auto _ : state) {
    call(eltwise_chain_run, in, out);
    benchmark::DoNotOptimize(y.data);
  }
  setBandwidth(state, double(kChain) * 8);
}

__attribute__((noinline)) void chainC(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] * 1.5f - 0.25f;
    y[i] = v > 0 ? v : 0;
  }
}

void chainHandC(benchmark::State &state) {
  Buffer x(kChain), y(kChain, 0);
  for (auto _ : state) {
    chainC(x.data, y.data, kChain);
    benchmark::DoNotOptimize(y.data);
  }
  setBandwidth(state, double(kChain) * 8);
}

/// The best a hand-written AVX loop does: streaming (non-temporal) stores
/// that skip reading the output lines into the cache.
__attribute__((noinline, target("avx2,fma"))) void
chainStream(const float *x, float *y, int64_t n) {
  __m256 a = _mm256_set1_ps(1.5f), c = _mm256_set1_ps(-0.25f),
         zero = _mm256_setzero_ps();
  // Both loops run to a bound computed once: with `i + 8 <= n` as the vector
  // loop's condition and the tail starting where it stopped, GCC (after
  // propagating n = kChain) could not bound the tail and warned that its
  // iteration 2^62 - 1 overflows (-Waggressive-loop-optimizations).
  int64_t vectorEnd = n - n % 8;
  for (int64_t i = 0; i < vectorEnd; i += 8)
    _mm256_stream_ps(y + i, _mm256_max_ps(
                                _mm256_fmadd_ps(_mm256_load_ps(x + i), a, c),
                                zero));
  for (int64_t i = vectorEnd; i < n; ++i) {
    float v = x[i] * 1.5f - 0.25f;
    y[i] = v > 0 ? v : 0;
  }
  _mm_sfence();
}

void chainStreamC(benchmark::State &state) {
  Buffer x(kChain), y(kChain, 0);
  for (auto _ : state) {
    chainStream(x.data, y.data, kChain);
    benchmark::DoNotOptimize(y.data);
  }
  setBandwidth(state, double(kChain) * 8);
}

void copyBandwidth(benchmark::State &state) {
  Buffer x(kChain), y(kChain, 0);
  for (auto _ : state) {
    std::memcpy(y.data, x.data, kChain * 4);
    benchmark::DoNotOptimize(y.data);
  }
  setBandwidth(state, double(kChain) * 8);
}

//===----------------------------------------------------------------------===//
// Row softmax and layer norm over [4096, 1024]
//===----------------------------------------------------------------------===//

constexpr int64_t kRows = 4096, kCols = 1024;
constexpr float kLayerNormEps = 1e-5f;

enum class RowOp { Softmax, LayerNorm };
enum class RowImpl { Txc, Eigen, OneDnn, CLoop };
constexpr RowImpl kRowImpls[] = {RowImpl::Txc, RowImpl::Eigen, RowImpl::OneDnn,
                                 RowImpl::CLoop};

const char *rowOpName(RowOp op) {
  return op == RowOp::Softmax ? "softmax_4096x1024" : "layer_norm_4096x1024";
}

const char *rowImplName(RowImpl impl) {
  switch (impl) {
  case RowImpl::Txc:
    return "txc";
  case RowImpl::Eigen:
    return "eigen";
  case RowImpl::OneDnn:
    return "onednn";
  case RowImpl::CLoop:
    return "c_loop";
  }
  return "?";
}

/// The operands of one row kernel; every instance holds the same values.
struct RowData {
  RowData() : x(kRows * kCols), gamma(kCols), beta(kCols), y(kRows * kCols, 0) {
    // gamma and beta have the same size, hence the same random values.
    for (int64_t j = 0; j < kCols; ++j) {
      gamma.data[j] = 1.0f + 0.5f * gamma.data[j];
      beta.data[j] *= 0.25f;
    }
  }
  Buffer x, gamma, beta, y;
};

double rowBytes(RowOp op) {
  return 2.0 * kRows * kCols * 4 +
         (op == RowOp::LayerNorm ? 2.0 * kCols * 4 : 0);
}

__attribute__((noinline)) void softmaxC(const float *x, float *y) {
  for (int64_t i = 0; i < kRows; ++i) {
    const float *xr = x + i * kCols;
    float *yr = y + i * kCols;
    float m = -INFINITY;
    for (int64_t j = 0; j < kCols; ++j)
      m = xr[j] > m ? xr[j] : m;
    float sum = 0;
    for (int64_t j = 0; j < kCols; ++j)
      sum += yr[j] = expf(xr[j] - m);
    for (int64_t j = 0; j < kCols; ++j)
      yr[j] /= sum;
  }
}

__attribute__((noinline)) void layerNormC(const float *x, const float *gamma,
                                          const float *beta, float *y) {
  for (int64_t i = 0; i < kRows; ++i) {
    const float *xr = x + i * kCols;
    float *yr = y + i * kCols;
    float sum = 0;
    for (int64_t j = 0; j < kCols; ++j)
      sum += xr[j];
    float mean = sum / kCols, sq = 0;
    for (int64_t j = 0; j < kCols; ++j)
      sq += (xr[j] - mean) * (xr[j] - mean);
    float rstd = 1.0f / sqrtf(sq / kCols + kLayerNormEps);
    for (int64_t j = 0; j < kCols; ++j)
      yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
  }
}

void softmaxEigen(const float *x, float *y) {
  for (int64_t i = 0; i < kRows; ++i) {
    Eigen::Map<const Eigen::ArrayXf> in(x + i * kCols, kCols);
    Eigen::Map<Eigen::ArrayXf> out(y + i * kCols, kCols);
    out = (in - in.maxCoeff()).exp();
    out /= out.sum();
  }
}

void layerNormEigen(const float *x, const float *gamma, const float *beta,
                    float *y) {
  Eigen::Map<const Eigen::ArrayXf> g(gamma, kCols), b(beta, kCols);
  for (int64_t i = 0; i < kRows; ++i) {
    Eigen::Map<const Eigen::ArrayXf> in(x + i * kCols, kCols);
    Eigen::Map<Eigen::ArrayXf> out(y + i * kCols, kCols);
    float mean = in.mean();
    float var = (in - mean).square().mean();
    out = (in - mean) * (1.0f / std::sqrt(var + kLayerNormEps)) * g + b;
  }
}

/// Prepares `impl` of `op` on `d` (oneDNN primitives are created here, not
/// in the timed loop) and returns the call to time.
std::function<void()> makeRowKernel(RowOp op, RowImpl impl, RowData &d) {
  switch (impl) {
  case RowImpl::Txc: {
    std::vector<txc_tensor> in = {tensor(d.x.data, {kRows, kCols})};
    if (op == RowOp::LayerNorm) {
      in.push_back(tensor(d.gamma.data, {kCols}));
      in.push_back(tensor(d.beta.data, {kCols}));
    }
    std::vector<txc_tensor> out = {tensor(d.y.data, {kRows, kCols})};
    EntryPoint entry =
        op == RowOp::Softmax ? softmax_4096x1024_run : layer_norm_4096x1024_run;
    return [=]() mutable { call(entry, in, out); };
  }
  case RowImpl::Eigen:
    if (op == RowOp::Softmax)
      return [&d] { softmaxEigen(d.x.data, d.y.data); };
    return
        [&d] { layerNormEigen(d.x.data, d.gamma.data, d.beta.data, d.y.data); };
  case RowImpl::CLoop:
    if (op == RowOp::Softmax)
      return [&d] { softmaxC(d.x.data, d.y.data); };
    return [&d] { layerNormC(d.x.data, d.gamma.data, d.beta.data, d.y.data); };
  case RowImpl::OneDnn: {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    memory::desc md({kRows, kCols}, memory::data_type::f32,
                    memory::format_tag::ab);
    memory xm(md, eng, d.x.data), ym(md, eng, d.y.data);
    primitive prim;
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, xm},
                                            {DNNL_ARG_DST, ym}};
    if (op == RowOp::Softmax) {
      // oneDNN 2.x: an op descriptor, then the primitive descriptor.
      softmax_forward::desc desc(prop_kind::forward_inference, md, 1);
      prim = softmax_forward(softmax_forward::primitive_desc(desc, eng));
    } else {
      memory::desc vd({kCols}, memory::data_type::f32, memory::format_tag::a);
      layer_normalization_forward::desc desc(
          prop_kind::forward_inference, md, kLayerNormEps,
          normalization_flags::use_scale | normalization_flags::use_shift);
      prim = layer_normalization_forward(
          layer_normalization_forward::primitive_desc(desc, eng));
      args[DNNL_ARG_SCALE] = memory(vd, eng, d.gamma.data);
      args[DNNL_ARG_SHIFT] = memory(vd, eng, d.beta.data);
    }
    return [=]() mutable {
      prim.execute(strm, args);
      strm.wait();
    };
  }
  }
  return {};
}

void runRowKernel(benchmark::State &state, RowOp op, RowImpl impl) {
  RowData d;
  std::function<void()> kernel = makeRowKernel(op, impl, d);
  for (auto _ : state) {
    kernel();
    benchmark::DoNotOptimize(d.y.data);
    benchmark::ClobberMemory();
  }
  setBandwidth(state, rowBytes(op));
}

/// The largest |a - b| and the largest |a - b| / (atol + rtol * |b|) (a
/// result passes when the second is at most 1).
struct Diff {
  double maxAbs = 0, maxScaled = 0;
};

Diff compare(const float *a, const float *ref, size_t n, double atol,
             double rtol) {
  Diff d;
  for (size_t i = 0; i < n; ++i) {
    double err = std::fabs(double(a[i]) - double(ref[i]));
    if (std::isnan(err))
      err = INFINITY;
    d.maxAbs = std::max(d.maxAbs, err);
    d.maxScaled =
        std::max(d.maxScaled, err / (atol + rtol * std::fabs(ref[i])));
  }
  return d;
}

/// Runs every peer of every row kernel once against txc's result, outside
/// the timed loops: a peer that computes something else is not a peer.
bool checkRowKernels() {
  // f32 tolerances: the implementations sum in different orders and use
  // different exp approximations (txc's vector exp is within 1 ulp).
  constexpr double atol = 1e-5, rtol = 1e-4;
  bool ok = true;
  for (RowOp op : {RowOp::Softmax, RowOp::LayerNorm}) {
    RowData ref;
    makeRowKernel(op, RowImpl::Txc, ref)();
    for (RowImpl impl : kRowImpls) {
      if (impl == RowImpl::Txc)
        continue;
      RowData d;
      makeRowKernel(op, impl, d)();
      Diff diff = compare(d.y.data, ref.y.data, d.y.count, atol, rtol);
      bool pass = diff.maxScaled <= 1;
      ok &= pass;
      std::fprintf(stderr,
                   "check %s/%s against txc: max abs diff %.3g (%s; "
                   "tolerance %.0e + %.0e * |txc|)\n",
                   rowOpName(op), rowImplName(impl), diff.maxAbs,
                   pass ? "ok" : "MISMATCH", atol, rtol);
    }
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// samples/attention and samples/cnn end to end
//===----------------------------------------------------------------------===//

// The largest sizes the samples accept: S = 512 tokens, B = 64 images.
constexpr int64_t kAttentionS = 512, kCnnB = 64;

struct Sample {
  const char *name;
  EntryPoint entry;
  std::vector<int64_t> inDims, outDims;
};

const Sample kSamples[] = {
    {"attention", attention_run, {kAttentionS, 32}, {kAttentionS, 32}},
    {"cnn", cnn_run, {kCnnB, 3, 16, 16}, {kCnnB, 10}},
};

void runSample(benchmark::State &state, const Sample &s) {
  Buffer x(product(s.inDims)), y(product(s.outDims), 0);
  std::vector<txc_tensor> in = {tensor(x.data, s.inDims)};
  std::vector<txc_tensor> out = {tensor(y.data, s.outDims)};
  for (auto _ : state) {
    call(s.entry, in, out);
    benchmark::DoNotOptimize(y.data);
  }
}

/// Writes a little-endian f32 .npy file (format version 1.0).
bool writeNpy(const std::string &path, const float *data,
              const std::vector<int64_t> &dims) {
  std::string shape = "(";
  for (int64_t d : dims)
    shape += std::to_string(d) + ",";
  shape += ")";
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return false;
  uint16_t len = uint16_t(header.size());
  std::fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  std::fwrite(&len, 2, 1, f);
  std::fwrite(header.data(), 1, header.size(), f);
  std::fwrite(data, 4, product(dims), f);
  return std::fclose(f) == 0;
}

/// Runs each sample once on the benchmark's inputs and writes them and the
/// outputs to <dir>/<sample>_{in,out}.npy, for bench/torch_bench.py to
/// compare PyTorch against.
bool dumpSamples(const std::string &dir) {
  for (const Sample &s : kSamples) {
    Buffer x(product(s.inDims)), y(product(s.outDims), 0);
    std::vector<txc_tensor> in = {tensor(x.data, s.inDims)};
    std::vector<txc_tensor> out = {tensor(y.data, s.outDims)};
    call(s.entry, in, out);
    std::string base = dir + "/" + s.name;
    if (!writeNpy(base + "_in.npy", x.data, s.inDims) ||
        !writeNpy(base + "_out.npy", y.data, s.outDims)) {
      std::fprintf(stderr, "cannot write %s_{in,out}.npy\n", base.c_str());
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The machine's FMA peak, for the ratios
//===----------------------------------------------------------------------===//

// Zen 3 retires two 8-wide FMAs per cycle with a 4-cycle latency, so at least
// 8 independent chains are needed to reach throughput; 12 leave headroom and
// still fit the 16 ymm registers with the two operands.
constexpr int kFmaChains = 12;

// noipa, not just noinline: GCC would otherwise find the function const and
// hoist the call out of the benchmark loop.
__attribute__((noipa, target("avx2,fma"))) float fmaPeakLoop(int64_t iters) {
  __m256 acc[kFmaChains];
  __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < kFmaChains; ++i)
    acc[i] = _mm256_set1_ps(float(i));
  // No asm barrier here: one on the array made GCC keep it in memory and
  // the stores, not the FMAs, set the pace. FMA is not reassociated without
  // -ffast-math and the sum is returned, so nothing can be folded away.
  for (int64_t k = 0; k < iters; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kFmaChains; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kFmaChains; ++i)
    sum = _mm256_add_ps(sum, acc[i]);
  return _mm256_cvtss_f32(sum);
}

void fmaPeak(benchmark::State &state) {
  constexpr int64_t iters = 1 << 20;
  for (auto _ : state)
    benchmark::DoNotOptimize(fmaPeakLoop(iters));
  setFlops(state, double(iters) * kFmaChains * 16);
}

} // namespace

int main(int argc, char **argv) {
  add("fma_peak/avx2", fmaPeak);
  for (auto [n, program] :
       {std::pair<int64_t, TxcProgram>{256, TXC_PROGRAM(sgemm_256, SGEMM_256)},
        {512, TXC_PROGRAM(sgemm_512, SGEMM_512)},
        {1024, TXC_PROGRAM(sgemm_1024, SGEMM_1024)}})
    registerLinear("sgemm_" + std::to_string(n), Linear{n, n, n, false},
                   program);
  registerLinear("linear_1x4x3", Linear{1, 4, 3, true},
                 TXC_PROGRAM(linear, LINEAR));
  registerLinear("linear_64x256x256", Linear{64, 256, 256, true},
                 TXC_PROGRAM(linear_64x256x256, LINEAR_64X256X256));
  registerLinear("linear_512x1024x1024", Linear{512, 1024, 1024, true},
                 TXC_PROGRAM(linear_512x1024x1024, LINEAR_512X1024X1024));
  for (int64_t b : {64, 61})
    add("linear_dyn_Bx256x256/B=" + std::to_string(b) + "/txc", runTxcLinear,
        TXC_PROGRAM(linear_dyn_256x256, LINEAR_DYN_256X256),
        Linear{b, 256, 256, true}, /*ownWorkspace=*/false);
  for (int64_t b : {512, 509})
    add("linear_dyn_Bx1024x1024/B=" + std::to_string(b) + "/txc", runTxcLinear,
        TXC_PROGRAM(linear_dyn_1024x1024, LINEAR_DYN_1024X1024),
        Linear{b, 1024, 1024, true}, /*ownWorkspace=*/false);
  // MobileNetV2's classifier: below 16 rows the unpacked dot-product form
  // (memory bound at B = 1: the 5 MB weight read once), from 16 the packed.
  for (int64_t b : {1, 8, 64})
    add("linear_t_dyn_Bx1280x1000/B=" + std::to_string(b) + "/txc",
        runTxcLinear,
        TXC_PROGRAM(linear_t_dyn_1000x1280, LINEAR_T_DYN_1000X1280),
        Linear{b, 1280, 1000, true, true}, /*ownWorkspace=*/false);
  add("call_overhead_linear_B1/txc", tinyLinearTxc);
  add("call_overhead_linear_B1/hand_c", tinyLinearHandC);
  add("eltwise_chain_16M/txc", chainTxc);
  add("eltwise_chain_16M/hand_c", chainHandC);
  add("eltwise_chain_16M/avx2_stream", chainStreamC);
  add("eltwise_chain_16M/memcpy", copyBandwidth);
  for (RowOp op : {RowOp::Softmax, RowOp::LayerNorm})
    for (RowImpl impl : kRowImpls)
      add(std::string(rowOpName(op)) + "/" + rowImplName(impl), runRowKernel,
          op, impl);
  for (const Sample &s : kSamples)
    add(std::string(s.name) + "_e2e/txc", runSample, s);
  benchmark::Initialize(&argc, argv);

  // Correctness first, whatever the filter: a mismatch fails the run.
  bool ok = checkRowKernels();
  if (const char *dir = std::getenv("TXC_BENCH_DUMP_DIR"))
    ok &= dumpSamples(dir);
  if (!ok) {
    std::fprintf(stderr, "txc-bench: result check failed\n");
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
