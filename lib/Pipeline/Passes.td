//===- Passes.td - txc's own MLIR passes -------------------*- tablegen -*-===//
//
// Every pass txc adds to MLIR's, in pipeline order (Pipeline.cpp assembles
// them). mlir-tblgen generates each pass's base class, its options and the
// registration that tools/txc-opt uses (GEN_PASS_DECL / GEN_PASS_DEF /
// GEN_PASS_REGISTRATION in Passes.h.inc).
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PIPELINE_PASSES
#define TXC_PIPELINE_PASSES

include "mlir/Pass/PassBase.td"

//===- On tensors --------------------------------------------------------===//

def FoldBiasIntoMatmulPass
    : Pass<"txc-fold-bias-into-matmul", "mlir::func::FuncOp"> {
  let summary = "Accumulate matmuls into their broadcast bias";
  let description = [{
    Rewrites `add(matmul(A, B, fill(0)), bias)` so that the matmul
    accumulates into the broadcast bias: the bias add disappears into the
    accumulator's initial value.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def FoldInPlaceOutputsPass
    : Pass<"txc-fold-in-place-outputs", "mlir::func::FuncOp"> {
  let summary = "Drop materializations of outputs computed in place";
  let description = [{
    Removes the `bufferization.materialize_in_destination` of an output
    whose value is already computed in its output argument.
  }];
}

//===- The codegen strategy (LoweringConfig.h) ----------------------------===//

def SelectLoweringStrategyPass
    : Pass<"txc-select-lowering-strategy", "mlir::func::FuncOp"> {
  let summary = "Choose how each root linalg op is tiled and vectorized";
  let description = [{
    Writes on each root linalg op on tensors its strategy and sizes as the
    dictionary attribute `txc.lowering_config`: "matmul" (form tiled, small
    or fused_epilogue, register and cache tiles) and "matmul_epilogue",
    "convolution" (one_matmul, row_matmuls, row_tiles, depthwise_taps or
    loops), "row_chain" on the root of a softmax-like chain, "elementwise"
    with its tile sizes. The sizes come from the target's row of the tuning
    table (LoweringConfig.cpp). The passes below apply the configs.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"128",
           "Width of the target's vector registers: 128, 256 or 512">,
    Option<"vectorRegisters", "vector-registers", "unsigned",
           /*default=*/"16", "Number of vector registers of the target">,
  ];
}

def TileMatmulPass : Pass<"txc-tile-matmul", "mlir::func::FuncOp"> {
  let summary = "Tile matmuls as their lowering configs say";
  let description = [{
    Applies the "matmul" configs: cache panels of B packed into strips and
    register tiles with a K loop of step 1, a small weight one row at a
    time, or an epilogue fused into the register tiles. Removes the configs
    it applies.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def TileConvolutionPass : Pass<"txc-tile-convolution", "mlir::func::FuncOp"> {
  let summary = "Tile convolutions as their lowering configs say";
  let description = [{
    Applies the "convolution" configs (one im2col matmul per image, row
    tiles of matmuls on a packed filter, 1-D row tiles, a depthwise
    convolution as a sum over its taps), then decomposes the static tiles of
    one output row into 1-D convolutions. Removes the configs it applies.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def TileRowChainsPass : Pass<"txc-tile-row-chains", "mlir::func::FuncOp"> {
  let summary = "Tile softmax-like chains one row at a time";
  let description = [{
    Applies the "row_chain" configs, last root first: the root is tiled one
    row per iteration with its producers fused into the row loop, and the
    ops of the row run in vector-sized chunks (reductions as partial
    reductions). Removes the configs it applies.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect"
  ];
}

def TileElementwisePass : Pass<"txc-tile-elementwise", "mlir::func::FuncOp"> {
  let summary = "Tile elementwise ops to a few vectors per step";
  let description = [{
    Applies the "elementwise" configs: tiles of one row by a few vectors,
    the last partial tile peeled. Removes the configs it applies.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect"
  ];
}

def VectorizeStaticOpsPass
    : Pass<"txc-vectorize-static-ops", "mlir::func::FuncOp"> {
  let summary = "Vectorize every small static linalg op";
  let description = [{
    After the tiling passes: canonicalizes, vectorizes every linalg op on
    tensors whose iteration space is static and at most max-elements, and
    folds the vector transfers into the tensor slices around them. Drops
    any lowering config that no strategy applied.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"4096",
           "Largest static iteration space vectorized as a whole">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::vector::VectorDialect"
  ];
}

def TileAndVectorizePass
    : Pass<"txc-tile-and-vectorize", "mlir::func::FuncOp"> {
  let summary = "The whole codegen strategy: select, tile, vectorize";
  let description = [{
    Runs txc-select-lowering-strategy, txc-tile-matmul,
    txc-tile-convolution, txc-tile-row-chains, txc-tile-elementwise and
    txc-vectorize-static-ops, as the pipeline does at -O2, for the target
    given by its options.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"128",
           "Width of the target's vector registers: 128, 256 or 512">,
    Option<"vectorRegisters", "vector-registers", "unsigned",
           /*default=*/"16", "Number of vector registers of the target">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::vector::VectorDialect"
  ];
}

//===- Around bufferization ----------------------------------------------===//

def SplitEmptyTensorsPass
    : Pass<"txc-split-empty-tensors", "mlir::func::FuncOp"> {
  let summary = "Split tensor.empty ops with many uses into several";
  let description = [{
    Splits a `tensor.empty` with many uses (merged by CSE) into copies of a
    few neighbouring uses each, so that one-shot bufferization analyzes
    small alias sets.
  }];
}

def ReturnResultsInOutputsPass
    : Pass<"txc-return-results-in-outputs", "mlir::ModuleOp"> {
  let summary = "Write returned buffers into the output arguments";
  let description = [{
    After bufferization: copies every returned buffer that is not its
    output argument (the last arguments, one per result) into it and drops
    all results, in the kernel and the functions of regions; a call's
    results are then its output operands.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def NameGlobalsInOrderPass
    : Pass<"txc-name-globals-in-order", "mlir::ModuleOp"> {
  let summary = "Name and order the constant globals by their first use";
  let description = [{
    One-shot bufferization makes a `memref.global` of each dense constant,
    named in the order it visits the functions, which MLIR 19 takes from a
    map keyed by pointers: with several functions (the regions), the names
    and the order of the globals, and so the object's bytes, changed from
    run to run. This pass renames the private constant globals
    `__constant_<n>` in the order the module's functions first read them
    and puts them in that order at the top of the module.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def WorkspacePass : Pass<"txc-workspace", "mlir::ModuleOp"> {
  let summary = "Place large temporaries in a caller-provided workspace";
  let description = [{
    After stack promotion: places the kernel's top-level allocations of
    static shape or of a shape that follows from the symbols, and the
    bounded ones in its loops, in one workspace, its new last argument, and
    adds a function computing the workspace's size from the symbols
    (Workspace.cpp, txc/Pipeline/Workspace.h).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect"];
}

def LowerVectorsPass : Pass<"txc-lower-vectors", "mlir::func::FuncOp"> {
  let summary = "Hoist and lower vector ops after bufferization";
  let description = [{
    Folds subviews into transfers, hoists loop-invariant accumulators out of
    reduction loops, lowers contractions to FMAs and transfers to plain
    loads and stores, and computes f32 exp on vectors inline.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect"
  ];
}

def StreamOutputStoresPass
    : Pass<"txc-stream-output-stores", "mlir::ModuleOp"> {
  let summary = "Non-temporal stores into large, aligned kernel outputs";
  let description = [{
    Versions each top-level loop that stores full vectors into kernel
    outputs at multiples of the vector length: when every such output is
    aligned to the vector size and holds at least `min-bytes`, a copy of the
    loop runs with its stores marked `nontemporal`, followed by a fence;
    otherwise the loop runs as it was. x86 only (MOVNTPS).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"256",
           "Width of the target's vector registers: 128, 256 or 512">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"4194304",
           "Outputs smaller than this are stored through the cache">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"
  ];
}

def ParallelTasksPass : Pass<"txc-parallel-tasks", "mlir::ModuleOp"> {
  let summary = "Run the iterations of parallel tile loops as tasks";
  let description = [{
    Gives each public function (the kernel) a first argument, a pointer to
    the call's parallel context (`{parallel_for, ctx, num_threads}`, NULL
    for a serial call). The outermost loops marked `txc.parallel` by the
    tiling (tile loops over parallel dimensions) whose iterations write
    disjoint memory have their body outlined into a task function
    `void task(void *arg, int64_t i)`, the values it uses packed in a
    struct on the stack; the loop becomes a call of the caller's
    `parallel_for` when there is one, more than one thread and enough
    work, and otherwise a serial loop over the same task function. A loop
    of a run-time trip count whose constant trip counts stay below 8 (a
    loop over the batch) with marked loops inside also gets a nested copy,
    run with threads when it has fewer than two iterations, whose inner
    marked loops are launched.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::scf::SCFDialect"];
}

def OutlineLoopsPass : Pass<"txc-outline-loops", "mlir::ModuleOp"> {
  let summary = "Outline the loop nests of large kernels into functions";
  let description = [{
    Outlines each top-level loop nest (or the versions of one) of a kernel
    with many of them into a private, never-inlined function, so that
    compile time grows linearly.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::scf::SCFDialect"];
}

def MergeIdenticalFunctionsPass
    : Pass<"txc-merge-identical-functions", "mlir::ModuleOp"> {
  let summary = "Call one copy of identical private functions";
  let description = [{
    Every call of a private function goes to the first function of the
    module whose IR (without locations and names) is identical; the other
    copies are erased, so that the rest of the pipeline and LLVM compile
    each distinct outlined loop nest once.
  }];
}

//===- Towards LLVM ------------------------------------------------------===//

def LowerStridedCopiesPass
    : Pass<"txc-lower-strided-copies", "mlir::func::FuncOp"> {
  let summary = "Turn memref.copy ops that are not contiguous into linalg.copy";
  let description = [{
    Turns every memref.copy that MemRefToLLVM would lower to a call of
    MLIR's runtime (`memrefCopy`) into a linalg.copy.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def AlignNontemporalStoresPass
    : Pass<"txc-align-nontemporal-stores", "mlir::ModuleOp"> {
  let summary = "Give non-temporal vector stores their vector's alignment";
  let description = [{
    After ConvertVectorToLLVM: each `llvm.store` of a vector marked
    `nontemporal` (only txc-stream-output-stores marks stores, in a loop
    version whose condition proved them aligned) gets the vector's size as
    its alignment (at most a register's), without which x86 splits it into
    scalar stores.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"256",
           "Width of the target's vector registers: 128, 256 or 512">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def FmaToLLVMPass : Pass<"txc-fma-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower math.fma to llvm.intr.fma (before math-to-libm)";
  let description = [{
    Lowers math.fma to llvm.intr.fma, so that ConvertMathToLibm does not
    make it a call of fmaf per lane.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // TXC_PIPELINE_PASSES
