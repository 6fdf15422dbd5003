//===- EmulatedRunner.cpp - Objects of another machine, under qemu --------===//
#include "txc/Testing/EmulatedRunner.h"

#include "txc/Program/DType.h"
#include "txc/Target/AbiEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstring>

using namespace txc;

/// The call harness, C99, compiled for the target. It reads from standard
/// input: the number of calls, the number of outputs and each one's element
/// size, then per call its inputs (dtype, rank, dims, size in bytes,
/// bytes); it writes per call a tag and then: 0, the outputs (dtype, rank,
/// dims, size, bytes); 1, the status (its nine fields) and message; 2, the
/// message of a check that failed. Every number is a 64-bit integer in the
/// target's byte order, which is little-endian like this machine's.
/// txc_harness_* are the object's entry points, given by the link
/// (--defsym).
static const char kHarnessSource[] = R"C(
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { void *data; int64_t size_bytes; int32_t dtype, rank;
                 int64_t dims[8]; } txc_tensor;
typedef struct { int32_t code, guard, tensor_kind, tensor_index, dim, symbol;
                 int64_t expected_min, expected_max, actual; } txc_status;
typedef int32_t entry(const txc_tensor *, int64_t, txc_tensor *, int64_t,
                      txc_status *);
entry txc_harness_run, txc_harness_output_shapes;
int32_t txc_harness_error_message(const txc_status *, char *, size_t);

enum { GUARD = 64, PATTERN = 0xA5 };

static int64_t get(void) {
  int64_t v;
  if (fread(&v, 8, 1, stdin) != 1) exit(3);
  return v;
}
static void put(int64_t v) { fwrite(&v, 8, 1, stdout); }
static void put_text(const char *text) {
  put((int64_t)strlen(text));
  fwrite(text, 1, strlen(text), stdout);
}
/* size bytes with GUARD bytes of PATTERN on both sides. */
static unsigned char *guarded(int64_t size) {
  unsigned char *p = malloc((size_t)size + 2 * GUARD);
  if (!p) exit(4);
  memset(p, PATTERN, (size_t)size + 2 * GUARD);
  return p + GUARD;
}
static int intact(const unsigned char *data, int64_t size) {
  for (int i = 0; i < GUARD; ++i)
    if (data[i - GUARD] != PATTERN || data[size + i] != PATTERN) return 0;
  return 1;
}
static void put_status(int32_t rc, const txc_status *s) {
  int32_t n = txc_harness_error_message(s, NULL, 0);
  char *text = malloc((size_t)n + 1);
  if (!text) exit(4);
  txc_harness_error_message(s, text, (size_t)n + 1);
  put(1); put(rc); put(s->guard); put(s->tensor_kind); put(s->tensor_index);
  put(s->dim); put(s->symbol); put(s->expected_min); put(s->expected_max);
  put(s->actual);
  put_text(text);
  free(text);
}
static void read_input(txc_tensor *t, unsigned char **copy) {
  t->dtype = (int32_t)get();
  t->rank = (int32_t)get();
  for (int d = 0; d < t->rank && d < 8; ++d) t->dims[d] = get();
  t->size_bytes = get();
  t->data = guarded(t->size_bytes);
  *copy = malloc((size_t)t->size_bytes + 1);
  if (!*copy || fread(t->data, 1, (size_t)t->size_bytes, stdin) !=
      (size_t)t->size_bytes) exit(3);
  memcpy(*copy, t->data, (size_t)t->size_bytes);
}
static int64_t elements(const txc_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->rank; ++d) n *= t->dims[d];
  return n;
}
/* The check that failed after a successful run, or NULL. */
static const char *check(txc_tensor *in, unsigned char **copies, int64_t ni,
                         txc_tensor *out, const txc_tensor *shapes,
                         int64_t no) {
  for (int64_t i = 0; i < ni; ++i)
    if (!intact(in[i].data, in[i].size_bytes) ||
        memcmp(in[i].data, copies[i], (size_t)in[i].size_bytes))
      return "the compiled code wrote into an input or next to it";
  for (int64_t o = 0; o < no; ++o) {
    if (!intact(out[o].data, out[o].size_bytes))
      return "the compiled code wrote outside an output";
    if (out[o].rank != shapes[o].rank ||
        memcmp(out[o].dims, shapes[o].dims, 8 * (size_t)out[o].rank))
      return "<p>_run and <p>_output_shapes disagree on an output's shape";
  }
  return NULL;
}
static void call(int64_t no, const int64_t *element_size) {
  int64_t ni = get();
  txc_tensor *in = calloc((size_t)ni + 1, sizeof *in);
  unsigned char **copies = calloc((size_t)ni + 1, sizeof *copies);
  txc_tensor *out = calloc((size_t)no + 1, sizeof *out);
  txc_tensor *shapes = calloc((size_t)no + 1, sizeof *shapes);
  txc_status status;
  if (!in || !copies || !out || !shapes) exit(4);
  for (int64_t i = 0; i < ni; ++i) read_input(&in[i], &copies[i]);
  memset(&status, 0, sizeof status);
  int32_t rc = txc_harness_output_shapes(in, ni, shapes, no, &status);
  if (rc) { put_status(rc, &status); return; }
  for (int64_t o = 0; o < no; ++o) {
    out[o].size_bytes = elements(&shapes[o]) * element_size[o];
    out[o].data = guarded(out[o].size_bytes);
  }
  memset(&status, 0, sizeof status);
  rc = txc_harness_run(in, ni, out, no, &status);
  if (rc) { put_status(rc, &status); return; }
  const char *failed = check(in, copies, ni, out, shapes, no);
  if (failed) { put(2); put_text(failed); return; }
  put(0);
  for (int64_t o = 0; o < no; ++o) {
    put(out[o].dtype); put(out[o].rank);
    for (int d = 0; d < out[o].rank; ++d) put(out[o].dims[d]);
    put(out[o].size_bytes);
    fwrite(out[o].data, 1, (size_t)out[o].size_bytes, stdout);
  }
}
int main(void) {
  int64_t calls = get(), no = get();
  int64_t *element_size = calloc((size_t)no + 1, sizeof *element_size);
  if (!element_size) exit(4);
  for (int64_t o = 0; o < no; ++o) element_size[o] = get();
  for (int64_t c = 0; c < calls; ++c) call(no, element_size);
  return fflush(stdout) ? 5 : 0;
}
)C";

EmulatorOptions txc::defaultEmulatorOptions(llvm::StringRef triple) {
  llvm::Triple target(llvm::Triple::normalize(triple));
  llvm::Triple host(llvm::sys::getDefaultTargetTriple());
  EmulatorOptions options;
  if (target.getArch() == host.getArch()) {
    options.cc = "cc";
    return options;
  }
  std::string arch = target.getArchName().str();
  options.cc = arch + "-linux-gnu-gcc";
  options.emulator = {"qemu-" + arch, "-L", "/usr/" + arch + "-linux-gnu"};
  return options;
}

static llvm::Error runnerError(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

llvm::Error EmulatedRunner::execute(llvm::ArrayRef<std::string> command,
                                    llvm::StringRef stdinPath,
                                    llvm::StringRef stdoutPath) {
  auto program = llvm::sys::findProgramByName(command.front());
  if (!program)
    return runnerError("cannot find '" + command.front() +
                       "' (scripts/install-deps.sh installs the cross "
                       "compilers and qemu-user)");
  std::string errorPath = directory + "/stderr.txt";
  std::vector<llvm::StringRef> args(command.begin(), command.end());
  std::optional<llvm::StringRef> redirects[] = {
      stdinPath.empty() ? std::optional<llvm::StringRef>("/dev/null")
                        : std::optional<llvm::StringRef>(stdinPath),
      stdoutPath.empty() ? std::optional<llvm::StringRef>("/dev/null")
                         : std::optional<llvm::StringRef>(stdoutPath),
      llvm::StringRef(errorPath)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/600, 0, &message);
  if (rc == 0)
    return llvm::Error::success();
  auto errors = llvm::MemoryBuffer::getFile(errorPath);
  return runnerError(
      "'" + llvm::join(command, " ") + "' failed (" +
      (message.empty() ? "exit status " + std::to_string(rc) : message) +
      ")" +
      (errors ? ": " + (*errors)->getBuffer().trim().str() : std::string()));
}

llvm::Expected<std::unique_ptr<EmulatedRunner>>
EmulatedRunner::create(EmulatorOptions options) {
  std::unique_ptr<EmulatedRunner> runner(new EmulatedRunner());
  runner->options = std::move(options);
  llvm::SmallString<128> directory;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("txc-emulated", directory))
    return runnerError("cannot create a temporary directory: " +
                       ec.message());
  runner->directory = std::string(directory);
  std::string source = runner->directory + "/harness.c";
  std::error_code ec;
  llvm::raw_fd_ostream os(source, ec);
  os << kHarnessSource;
  os.close();
  if (ec || os.has_error())
    return runnerError("cannot write " + source);
  runner->harnessObject = runner->directory + "/harness.o";
  if (llvm::Error err = runner->execute(
          {runner->options.cc, "-std=c99", "-O1", "-c", source, "-o",
           runner->harnessObject},
          "", ""))
    return err;
  return runner;
}

EmulatedRunner::~EmulatedRunner() {
  if (!directory.empty())
    llvm::sys::fs::remove_directories(directory);
}

llvm::Expected<std::unique_ptr<EmulatedProgram>>
EmulatedRunner::load(llvm::StringRef object, const Contract &contract,
                     llvm::StringRef name) {
  std::string base = directory + "/program-" + std::to_string(loaded++);
  std::string objectPath = base + ".o";
  std::error_code ec;
  llvm::raw_fd_ostream os(objectPath, ec);
  os << object;
  os.close();
  if (ec || os.has_error())
    return runnerError("cannot write " + objectPath);
  std::vector<std::string> link = {
      options.cc, harnessObject, objectPath, "-o", base, "-lm",
      "-Wl,--defsym=txc_harness_run=" + contract.runSymbol(),
      "-Wl,--defsym=txc_harness_output_shapes=" + contract.shapesSymbol(),
      "-Wl,--defsym=txc_harness_error_message=" + contract.messageSymbol()};
  if (llvm::Error err = execute(link, "", ""))
    return runnerError("cannot link '" + name + "': " +
                       llvm::toString(std::move(err)));
  return std::unique_ptr<EmulatedProgram>(
      new EmulatedProgram(*this, base, contract));
}

namespace {
/// The harness's answers, read in order.
class ResultReader {
public:
  explicit ResultReader(llvm::StringRef bytes) : rest(bytes) {}

  bool get(int64_t &value) {
    if (rest.size() < 8)
      return false;
    std::memcpy(&value, rest.data(), 8);
    rest = rest.drop_front(8);
    return true;
  }
  bool bytes(int64_t size, llvm::StringRef &out) {
    if (size < 0 || rest.size() < uint64_t(size))
      return false;
    out = rest.take_front(size_t(size));
    rest = rest.drop_front(size_t(size));
    return true;
  }
  bool text(std::string &out) {
    int64_t size;
    llvm::StringRef chars;
    if (!get(size) || !bytes(size, chars))
      return false;
    out = chars.str();
    return true;
  }

private:
  llvm::StringRef rest;
};
} // namespace

/// One call's status (tag 1): the nine fields and the message.
static bool readStatus(ResultReader &reader, ExecutionResult &result) {
  int64_t fields[9];
  for (int64_t &field : fields)
    if (!reader.get(field))
      return false;
  CallStatus &status = result.status;
  status.code = StatusCode(fields[0]);
  status.guard = int32_t(fields[1]);
  status.side = TensorSide(fields[2]);
  status.tensor = int32_t(fields[3]);
  status.dim = int32_t(fields[4]);
  status.symbol = int32_t(fields[5]);
  status.expectedMin = fields[6];
  status.expectedMax = fields[7];
  status.actual = fields[8];
  return reader.text(result.message);
}

/// One call's outputs (tag 0).
static bool readOutputs(ResultReader &reader, size_t count,
                        ExecutionResult &result) {
  for (size_t o = 0; o < count; ++o) {
    int64_t dtype, rank, size;
    if (!reader.get(dtype) || !reader.get(rank) || rank < 0 ||
        rank > int64_t(AbiLayout::kMaxRank))
      return false;
    std::vector<int64_t> dims(size_t(rank), 0);
    for (int64_t &dim : dims)
      if (!reader.get(dim))
        return false;
    llvm::StringRef data;
    if (!reader.get(size) || !reader.bytes(size, data))
      return false;
    auto tensor = Tensor::create(DType(dtype), dims);
    if (!tensor || int64_t(tensor->sizeBytes()) != size)
      return false;
    std::memcpy(tensor->data(), data.data(), data.size());
    result.outputs.push_back(std::move(*tensor));
  }
  return true;
}

static void writeInt(llvm::raw_ostream &os, int64_t value) {
  char bytes[8];
  std::memcpy(bytes, &value, 8);
  os.write(bytes, 8);
}

/// The harness's standard input for these calls.
static void writeCalls(llvm::raw_ostream &os, const Contract &contract,
                       llvm::ArrayRef<std::vector<Tensor>> inputSets) {
  writeInt(os, int64_t(inputSets.size()));
  writeInt(os, int64_t(contract.outputs.size()));
  for (const ContractTensor &output : contract.outputs)
    writeInt(os, int64_t(dtypeSize(output.type.dtype)));
  for (const std::vector<Tensor> &inputs : inputSets) {
    writeInt(os, int64_t(inputs.size()));
    for (const Tensor &input : inputs) {
      writeInt(os, int64_t(input.dtype()));
      writeInt(os, int64_t(input.rank()));
      for (unsigned d = 0; d < input.rank() && d < AbiLayout::kMaxRank; ++d)
        writeInt(os, input.shape()[d]);
      writeInt(os, int64_t(input.sizeBytes()));
      os.write(reinterpret_cast<const char *>(input.data()),
               input.sizeBytes());
    }
  }
}

llvm::Expected<std::vector<llvm::Expected<ExecutionResult>>>
EmulatedProgram::runAll(llvm::ArrayRef<std::vector<Tensor>> inputSets) const {
  std::string callsPath = executable + ".calls";
  std::string resultsPath = executable + ".results";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(callsPath, ec);
    writeCalls(os, contract, inputSets);
    os.close();
    if (ec || os.has_error())
      return runnerError("cannot write " + callsPath);
  }
  std::vector<std::string> command = runner.options.emulator;
  command.push_back(executable);
  if (llvm::Error err = runner.execute(command, callsPath, resultsPath))
    return err;
  auto results = llvm::MemoryBuffer::getFile(resultsPath);
  if (!results)
    return runnerError("cannot read " + resultsPath);
  ResultReader reader((*results)->getBuffer());
  std::vector<llvm::Expected<ExecutionResult>> outcomes;
  for (size_t c = 0; c < inputSets.size(); ++c) {
    int64_t tag;
    ExecutionResult result;
    std::string failure;
    bool read = reader.get(tag) &&
                (tag == 0   ? readOutputs(reader, contract.outputs.size(),
                                          result)
                 : tag == 1 ? readStatus(reader, result)
                 : tag == 2 && reader.text(failure));
    if (!read)
      return runnerError("the harness of '" + executable +
                         "' wrote results txc cannot read");
    if (tag == 2)
      outcomes.push_back(runnerError(failure));
    else
      outcomes.push_back(std::move(result));
  }
  return outcomes;
}
