//===- Regions.h - The program cut into kernel regions ----------*- C++ -*-===//
//
// After verification the program's top-level nodes are cut into regions:
// contiguous runs of nodes that the code generator fuses anyway (an anchor
// such as a matmul, a convolution or a row chain, with the elementwise ops
// after it; the views before an anchor go with it). MLIRGen lowers each
// region into a function of its own, which the kernel calls in order over
// buffers it owns, so that the MLIR and LLVM passes work on one region at
// a time: compile time grows with the number of regions, not faster.
// Regions that are structurally identical (same ops, attributes, dtypes,
// shapes and symbolic shape expressions; other weights or buffers) share
// one function, so a model's repeated layers are compiled once.
//
// The plan is decided here, once; `txc explain` prints it and
// `txc compile --emit regions` writes it (docs/architecture.md, "Regions").
//
//===----------------------------------------------------------------------===//
#ifndef TXC_ANALYSIS_REGIONS_H
#define TXC_ANALYSIS_REGIONS_H

#include "txc/Program/Program.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace txc {

struct Contract;

/// What a region is built around (the first anchor among its nodes).
enum class RegionKind {
  Elementwise,   ///< elementwise ops and views only
  Contraction,   ///< matmul, linear, gemm with their epilogue
  Convolution,   ///< a convolution with its epilogue
  Pooling,
  RowChain,      ///< a reduction or normalization (softmax, layer norm, ...)
  Shape,         ///< data movement: concat, pad, split, tile
  Indexing,      ///< gathers (their guards are checked while they run)
  ControlFlow,   ///< cond, while
};

llvm::StringRef regionKindName(RegionKind kind);

/// Whether an inline constant is compiled into the functions that read it
/// (a scalar, a splat, a short vector: what the codegen folds) rather than
/// passed to them as an input. Larger tables are inputs, so that layers
/// that differ only in their inline weights still share one function.
bool isFoldedIntoRegion(const ConstantDecl &constant);

struct Region {
  RegionKind kind = RegionKind::Elementwise;
  /// The program's top-level nodes [firstNode, endNode).
  unsigned firstNode = 0;
  unsigned endNode = 0;
  /// Values the region reads from outside: program inputs, stored
  /// constants, inline constants too large to fold, and results of earlier
  /// regions, in order of first use (value references: `name` or
  /// `name:1`). Small or splat inline constants (isFoldedIntoRegion) are
  /// not inputs: they are compiled into the region's function.
  std::vector<std::string> inputs;
  /// Values the region defines that later regions read or the program
  /// returns, in the order their nodes define them.
  std::vector<std::string> outputs;
  /// The function that computes this region (an index into
  /// RegionPlan::functions).
  unsigned function = 0;

  unsigned numNodes() const { return endNode - firstNode; }
};

struct RegionFunction {
  /// Hex SHA-256 of the region's canonical description: the regions with
  /// this key share the function.
  std::string key;
  /// The first region this function computes: MLIRGen lowers its nodes.
  unsigned firstRegion = 0;
  /// How many regions call it.
  unsigned uses = 0;
};

struct RegionPlan {
  std::vector<Region> regions;
  std::vector<RegionFunction> functions;
};

struct RegionOptions {
  /// A region ends after this many nodes: long elementwise chains become
  /// several (identical, so shared) regions, which bounds the work and
  /// memory of each function's passes.
  unsigned maxNodes = 32;
  /// False: the whole program is one region, lowered into the kernel
  /// itself (`txc compile --regions one`).
  bool cut = true;
};

/// Cuts the verified program's top-level nodes into regions and gives
/// identical regions one function.
RegionPlan planRegions(const Program &program, const Contract &contract,
                       const RegionOptions &options = {});

/// The region plan as JSON (`--emit regions`, `txc explain --format json`).
nlohmann::ordered_json regionPlanToJson(const Program &program,
                                        const RegionPlan &plan);

} // namespace txc

#endif
