// Calls the compiled `linear` region from C++ through its generated C++ API:
// Y = X*W + b with a dynamic batch B.
//
//   txc compile linear.json -o linear.o --header-cxx linear.hpp
//   c++ -std=c++17 -I. main.cpp linear.o -o linear_cxx && ./linear_cxx 5
//
// The same as main.c: Y for a batch of B rows, then a call that breaks the
// artifact's contract (X of shape [B,7] instead of [B,4]), whose status
// names the failed guard. No exceptions: every call returns a txc::Status.
#include "linear.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  std::int64_t batch = argc > 1 ? std::atoll(argv[1]) : 5;
  if (batch < LINEAR_SYMBOL_B_MIN || batch > LINEAR_SYMBOL_B_MAX) {
    std::fprintf(stderr, "B must be in [%lld, %lld]\n",
                 (long long)LINEAR_SYMBOL_B_MIN, (long long)LINEAR_SYMBOL_B_MAX);
    return 2;
  }
  std::vector<float> x(batch * 7), w(4 * 3), b = {0.5f, -1.0f, 2.0f};
  for (std::int64_t i = 0; i < batch * 4; ++i)
    x[i] = float(i % 7) - 3.0f;
  for (int i = 0; i < 12; ++i)
    w[i] = 0.25f * float(i + 1);

  linear::Program program; // owns the workspace, if the program needs one
  linear::Inputs inputs{{x, {batch, 4}}, {w, {4, 3}}, {b, {3}}};
  // The output's size from the input shapes, with the same guards as run.
  txc::Result<linear::OutputShapes> shapes = program.output_shapes(inputs);
  if (!shapes) {
    std::fprintf(stderr, "%s\n", shapes.status().message().c_str());
    return 1;
  }
  std::vector<float> y(shapes->Y.elements());
  linear::Outputs outputs{{y}};
  txc::Status status = program.run(inputs, outputs);
  if (!status) {
    std::fprintf(stderr, "linear run failed (%d): %s\n", status.code(),
                 status.message().c_str());
    return 1;
  }
  const txc::Shape &shape = outputs.Y.shape();
  std::printf("Y = X*W + b with B = %lld, Y has shape [%lld, %lld]:\n",
              (long long)batch, (long long)shape[0], (long long)shape[1]);
  for (std::int64_t i = 0; i < shape[0]; ++i)
    std::printf("  [%8.3f %8.3f %8.3f]\n", y[i * 3], y[i * 3 + 1],
                y[i * 3 + 2]);

  // Break the contract: X with 7 columns. The call is rejected before any
  // tensor memory is touched, and the status names the failed guard.
  inputs.X = {x, {batch, 7}};
  status = program.run(inputs, outputs);
  std::printf("\nCalling with X of shape [%lld, 7]:\n  rc = %d (TXC_E_DIM = "
              "%d), guard %d\n  %s\n",
              (long long)batch, status.code(), TXC_E_DIM, status.guard(),
              status.message().c_str());
  return status.code() == TXC_E_DIM ? 0 : 1;
}
