/* End-to-end test of txc's elementwise ops for one dtype.
 *
 *   harness gen DTYPE [shapes] prints the program: every elementwise op that
 *                              accepts DTYPE, one output each (with
 *                              `shapes`, on operands of ranks 0 to 3 for
 *                              txc-difftest)
 *   harness run DTYPE [--approximate-math] B...
 *                              (built with -DWITH_KERNEL and the compiled
 *                              program's header k.h) runs it for each batch
 *                              size B and compares every element with the
 *                              reference semantics of docs/ops.md
 *
 * Inputs are [B,256] (B in [1,256]); the first 256 elements pair every
 * special value (NaN, +-inf, +-0, extremes, INT_MIN, ...) with every other,
 * 8-bit dtypes see every pair of values and f16/bf16 every bit pattern at
 * B = 256, wider dtypes random bits and values in useful ranges. Results must
 * match bit for bit (any NaN matches any NaN). For f32 and f64 the
 * transcendental ops are also checked against long double values of the
 * mathematical functions, which catches a wrong formula or constant that a
 * reference written the same way would share.
 */
#define _GNU_SOURCE
#include "common.h"

#ifdef WITH_KERNEL
#include "k.h"
#endif

enum op_kind {
  NEG,
  ABS,
  SIGN,
  NOT,
  FLOOR,
  CEIL,
  ROUND,
  EXP,
  LOG,
  LOG1P,
  SQRT,
  RSQRT,
  RECIPROCAL,
  TANH,
  SIGMOID,
  ERF,
  SIN,
  COS,
  TAN,
  ASIN,
  ACOS,
  ATAN,
  SINH,
  COSH,
  ASINH,
  ACOSH,
  ATANH,
  RELU,
  SILU,
  GELU,
  GELU_TANH,
  LEAKY_RELU,
  HARD_SIGMOID,
  HARD_SWISH,
  CLAMP,
  ADD,
  SUB,
  MUL,
  DIV,
  MOD,
  FMOD,
  POW,
  MAX,
  MIN,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  AND,
  OR,
  XOR,
  SHL,
  SHR,
  SELECT
};

/* Which dtypes an op accepts. */
enum accepts { ANY, NUMERIC, FLOATS, INT_OR_BOOL, UNSIGNED };

/* Operands by letter: X, Y [B,256]; R [256]; K [B,1] of the dtype;
 * C [B,256] and D [B,1] bool. */
struct test_case {
  const char *name; /* node and output name */
  const char *op;
  enum op_kind kind;
  enum accepts accepts;
  const char *operands;
  const char *attributes; /* JSON object or "" */
  int has_min, has_max;
  double min, max, alpha;
};

#define UNARY(name, op, kind, accepts)                                         \
  { name, op, kind, accepts, "X", "", 0, 0, 0, 0, 0 }
#define BINARY(name, op, kind, accepts, operands)                              \
  { name, op, kind, accepts, operands, "", 0, 0, 0, 0, 0 }

static const struct test_case cases[] = {
    UNARY("neg", "neg", NEG, NUMERIC),
    UNARY("abs", "abs", ABS, NUMERIC),
    UNARY("sign", "sign", SIGN, NUMERIC),
    UNARY("not", "not", NOT, INT_OR_BOOL),
    UNARY("floor", "floor", FLOOR, NUMERIC),
    UNARY("ceil", "ceil", CEIL, NUMERIC),
    UNARY("round", "round", ROUND, NUMERIC),
    UNARY("exp", "exp", EXP, FLOATS),
    UNARY("log", "log", LOG, FLOATS),
    UNARY("log1p", "log1p", LOG1P, FLOATS),
    UNARY("sqrt", "sqrt", SQRT, FLOATS),
    UNARY("rsqrt", "rsqrt", RSQRT, FLOATS),
    UNARY("reciprocal", "reciprocal", RECIPROCAL, FLOATS),
    UNARY("tanh", "tanh", TANH, FLOATS),
    UNARY("sigmoid", "sigmoid", SIGMOID, FLOATS),
    UNARY("erf", "erf", ERF, FLOATS),
    UNARY("sin", "sin", SIN, FLOATS),
    UNARY("cos", "cos", COS, FLOATS),
    UNARY("tan", "tan", TAN, FLOATS),
    UNARY("asin", "asin", ASIN, FLOATS),
    UNARY("acos", "acos", ACOS, FLOATS),
    UNARY("atan", "atan", ATAN, FLOATS),
    UNARY("sinh", "sinh", SINH, FLOATS),
    UNARY("cosh", "cosh", COSH, FLOATS),
    UNARY("asinh", "asinh", ASINH, FLOATS),
    UNARY("acosh", "acosh", ACOSH, FLOATS),
    UNARY("atanh", "atanh", ATANH, FLOATS),
    UNARY("relu", "relu", RELU, NUMERIC),
    UNARY("silu", "silu", SILU, FLOATS),
    UNARY("gelu", "gelu", GELU, FLOATS),
    {"gelu_none", "gelu", GELU, FLOATS, "X", "{\"approximate\": \"none\"}", 0,
     0, 0, 0, 0},
    {"gelu_tanh", "gelu", GELU_TANH, FLOATS, "X", "{\"approximate\": \"tanh\"}",
     0, 0, 0, 0, 0},
    {"leaky_relu", "leaky_relu", LEAKY_RELU, FLOATS, "X", "", 0, 0, 0, 0, 0.01},
    {"leaky_relu_02", "leaky_relu", LEAKY_RELU, FLOATS, "X", "{\"alpha\": 0.2}",
     0, 0, 0, 0, 0.2},
    {"leaky_relu_neg", "leaky_relu", LEAKY_RELU, FLOATS, "X",
     "{\"alpha\": -1.5}", 0, 0, 0, 0, -1.5},
    {"hard_sigmoid", "hard_sigmoid", HARD_SIGMOID, FLOATS, "X", "", 0, 0, 0, 0,
     0.2},
    {"hard_sigmoid_02", "hard_sigmoid", HARD_SIGMOID, FLOATS, "X",
     "{\"alpha\": 0.125}", 0, 0, 0, 0, 0.125},
    UNARY("hard_swish", "hard_swish", HARD_SWISH, FLOATS),
    {"clamp", "clamp", CLAMP, NUMERIC, "X", "{\"min\": -3, \"max\": 100}", 1, 1,
     -3, 100, 0},
    {"clamp_min", "clamp", CLAMP, NUMERIC, "X", "{\"min\": 5}", 1, 0, 5, 0, 0},
    {"clamp_max", "clamp", CLAMP, NUMERIC, "X", "{\"max\": -7}", 0, 1, 0, -7,
     0},
    {"clamp_reversed", "clamp", CLAMP, NUMERIC, "X",
     "{\"min\": 4, \"max\": -4}", 1, 1, 4, -4, 0},
    {"clamp_wide", "clamp", CLAMP, NUMERIC, "X",
     "{\"min\": -1e10, \"max\": 1e10}", 1, 1, -1e10, 1e10, 0},
    {"clamp_fraction", "clamp", CLAMP, FLOATS, "X",
     "{\"min\": -0.3, \"max\": 0.7}", 1, 1, -0.3, 0.7, 0},
    BINARY("add", "add", ADD, NUMERIC, "XY"),
    BINARY("sub", "sub", SUB, NUMERIC, "XY"),
    BINARY("mul", "mul", MUL, NUMERIC, "XY"),
    BINARY("div", "div", DIV, NUMERIC, "XY"),
    BINARY("mod", "mod", MOD, NUMERIC, "XY"),
    BINARY("fmod", "fmod", FMOD, NUMERIC, "XY"),
    BINARY("pow", "pow", POW, NUMERIC, "XY"),
    BINARY("maximum", "maximum", MAX, ANY, "XY"),
    BINARY("minimum", "minimum", MIN, ANY, "XY"),
    BINARY("eq", "eq", EQ, ANY, "XY"),
    BINARY("ne", "ne", NE, ANY, "XY"),
    BINARY("lt", "lt", LT, ANY, "XY"),
    BINARY("le", "le", LE, ANY, "XY"),
    BINARY("gt", "gt", GT, ANY, "XY"),
    BINARY("ge", "ge", GE, ANY, "XY"),
    BINARY("and", "and", AND, INT_OR_BOOL, "XY"),
    BINARY("or", "or", OR, INT_OR_BOOL, "XY"),
    BINARY("xor", "xor", XOR, INT_OR_BOOL, "XY"),
    BINARY("shift_left", "shift_left", SHL, UNSIGNED, "XY"),
    BINARY("shift_right", "shift_right", SHR, UNSIGNED, "XY"),
    BINARY("select", "select", SELECT, ANY, "CXY"),
    /* Broadcasting: [B,256] with [256], [B,1] with [B,256]. */
    BINARY("sub_row", "sub", SUB, NUMERIC, "XR"),
    BINARY("mod_column", "mod", MOD, NUMERIC, "XK"),
    BINARY("maximum_row", "maximum", MAX, ANY, "RX"),
    BINARY("lt_column", "lt", LT, ANY, "KX"),
    BINARY("xor_row", "xor", XOR, INT_OR_BOOL, "XR"),
    BINARY("shift_left_column", "shift_left", SHL, UNSIGNED, "XK"),
    BINARY("select_broadcast", "select", SELECT, ANY, "DRK"),
};
#define NUM_CASES (int)(sizeof cases / sizeof cases[0])

static int accepted(const struct test_case *c, enum dtype t) {
  switch (c->accepts) {
  case ANY:
    return 1;
  case NUMERIC:
    return t != BOOL;
  case FLOATS:
    return is_float(t);
  case INT_OR_BOOL:
    return !is_float(t);
  case UNSIGNED:
    return is_unsigned_int(t);
  }
  return 0;
}

static inline int is_comparison(enum op_kind k) { return k >= EQ && k <= GE; }

/*===--- the program
 * -------------------------------------------------------===*/

/* The inputs' shapes: the harness's [B,256] layout, or (`shapes`) one with
 * rank 0 and rank 3 operands that broadcast in every position, for
 * txc-difftest: X [B,1,S] with Y [3,1] gives [B,3,S], R is a scalar, K is
 * [B,3,1], select's conditions C [3,S] and D []. */
static void generate(enum dtype t, int shapes) {
  const char *d = dtype_names[t];
  const char *symbols = shapes ? "{\"name\": \"B\", \"min\": 1, \"max\": 5}, "
                                 "{\"name\": \"S\", \"min\": 2, \"max\": 12, "
                                 "\"multiple_of\": 2}"
                               : "{\"name\": \"B\", \"min\": 1, \"max\": 256}";
  const char *x = shapes ? "[\"B\", 1, \"S\"]" : "[\"B\", 256]";
  const char *y = shapes ? "[3, 1]" : "[\"B\", 256]";
  const char *r = shapes ? "[]" : "[256]";
  const char *k = shapes ? "[\"B\", 3, 1]" : "[\"B\", 1]";
  const char *cond = shapes ? "[3, \"S\"]" : "[\"B\", 256]";
  const char *cond1 = shapes ? "[]" : "[\"B\", 1]";
  printf("{\n  \"format\": \"txc.program\", \"version\": 1, "
         "\"name\": \"ew_%s%s\",\n"
         "  \"symbols\": [%s],\n  \"inputs\": [\n"
         "    {\"name\": \"X\", \"dtype\": \"%s\", \"shape\": %s},\n"
         "    {\"name\": \"Y\", \"dtype\": \"%s\", \"shape\": %s},\n"
         "    {\"name\": \"R\", \"dtype\": \"%s\", \"shape\": %s},\n"
         "    {\"name\": \"K\", \"dtype\": \"%s\", \"shape\": %s},\n"
         "    {\"name\": \"C\", \"dtype\": \"bool\", \"shape\": %s},\n"
         "    {\"name\": \"D\", \"dtype\": \"bool\", \"shape\": %s}\n"
         "  ],\n  \"nodes\": [\n",
         d, shapes ? "_shapes" : "", symbols, d, x, d, y, d, r, d, k, cond,
         cond1);
  int first = 1;
  for (int i = 0; i < NUM_CASES; ++i) {
    const struct test_case *c = &cases[i];
    if (!accepted(c, t))
      continue;
    printf("%s    {\"name\": \"%s\", \"op\": \"%s\", \"operands\": [",
           first ? "" : ",\n", c->name, c->op);
    for (const char *o = c->operands; *o; ++o)
      printf("%s\"%c\"", o == c->operands ? "" : ", ", *o);
    printf("]%s%s}", *c->attributes ? ", \"attributes\": " : "", c->attributes);
    first = 0;
  }
  printf("\n  ],\n  \"outputs\": [");
  first = 1;
  for (int i = 0; i < NUM_CASES; ++i)
    if (accepted(&cases[i], t)) {
      printf("%s\"%s\"", first ? "" : ", ", cases[i].name);
      first = 0;
    }
  printf("]\n}\n");
}

#ifdef WITH_KERNEL

static enum dtype result_dtype(const struct test_case *c, enum dtype t) {
  return is_comparison(c->kind) ? BOOL : t;
}

/*===--- inputs
 * ------------------------------------------------------------===*/

/* Special values, paired with each other in the first 256 elements. */
static void special_value(enum dtype t, int i, void *out) {
  if (is_float(t)) {
    long double max = t == F32   ? 3.4028234663852886e38L
                      : t == F64 ? 1.7976931348623157e308L
                      : t == F16 ? 65504.0L
                                 : 3.3895313892515355e38L;
    long double tiny = t == F32   ? ldexpl(1, -149)
                       : t == F64 ? ldexpl(1, -1074)
                       : t == F16 ? ldexpl(1, -24)
                                  : ldexpl(1, -133);
    const long double values[16] = {
        0.0L, -0.0L, 1,        -1,        0.5L, -2.5L, 2.5L, 3,
        -7,   0.1L,  INFINITY, -INFINITY, NAN,  max,   tiny, -1e-30L};
    store_float(t, out, values[i]);
  } else {
    const int64_t values[16] = {
        0,          1,          -1, 2,  -2,  3,    7,   -7,
        int_min(t), int_max(t), 63, 64, 100, -100, -64, int_min(t) + 1};
    store_int(t, out, (uint64_t)values[i]);
  }
}

/* Element k of input `stream` (0: X, 1: Y, 2: R, 3: K): a function of k
 * only, so the inputs at B = 1 are a prefix of those at B = 256. */
static void input_value(enum dtype t, int stream, int64_t k, void *out) {
  rng_state = (uint64_t)k * 4 + (uint64_t)stream + 1;
  next_random();
  if (t == BOOL) {
    store_int(t, out, (uint64_t)(stream == 1 ? k >> 1 : k) & 1);
  } else if (t == I8 || t == U8) {
    /* Every pair (x, y) over X and Y at B = 256. */
    store_int(t, out, (uint64_t)(stream == 1 ? k >> 8 : k + stream));
  } else if (k < 256) {
    special_value(t, (int)(stream == 1 ? k % 16 : k / 16 % 16), out);
  } else if (t == F16 || t == BF16) {
    /* Every bit pattern over X at B = 256, scrambled ones in Y. */
    uint16_t bits = (uint16_t)(stream == 0 ? k : k * 40503 + stream * 4099);
    memcpy(out, &bits, 2);
  } else if (is_float(t)) {
    uint64_t bits = next_random();
    const double scales[4] = {0, 4, 40, 1000};
    if (k % 4 == 0)
      memcpy(out, &bits, (size_t)dtype_sizes[t]);
    else
      store_float(t, out, random_unit() * scales[k % 4]);
  } else {
    uint64_t bits = next_random();
    if (k % 3 == 1) /* small values, exponents of pow */
      bits = (uint64_t)(int64_t)(random_unit() * 40);
    store_int(t, out, bits);
  }
}

/*===--- reference semantics
 * -----------------------------------------------===*/

#define T float
#define FN(name) name##f
#include "ref_float.inc"
#undef T
#undef FN
#define T double
#define FN(name) name
#include "ref_float.inc"
#undef T
#undef FN

/* A clamp bound as a value of the dtype: floats round to nearest even,
 * integers saturate. */
static long double float_bound(enum dtype t, double bound) {
  char tmp[8];
  store_float(t, tmp, bound);
  return load_float(t, tmp);
}
static int64_t int_bound(enum dtype t, double bound) {
  if (bound <= (double)int_min(t))
    return int_min(t);
  if (bound >= (double)int_max(t))
    return int_max(t);
  return (int64_t)bound;
}

/* A clamp bound of an unsigned dtype, saturated to [0, max]. */
static uint64_t uint_bound(enum dtype t, double bound) {
  if (bound <= 0)
    return 0;
  if (bound >= ldexp(1, int_width(t)))
    return (uint64_t)int_max(t);
  return (uint64_t)bound;
}

static uint64_t int_pow(uint64_t x, uint64_t e) {
  uint64_t result = 1;
  for (; e; e >>= 1, x *= x)
    if (e & 1)
      result *= x;
  return result;
}

static int64_t ref_int(const struct test_case *c, enum dtype t, int64_t x,
                       int64_t y) {
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
  int is_signed = is_signed_int(t);
  switch (c->kind) {
  case NEG:
    return wrap_int(t, 0 - ux);
  case ABS:
    return wrap_int(t, x < 0 ? 0 - ux : ux);
  case SIGN:
    return x > 0 ? 1 : x < 0 ? -1 : 0;
  case NOT:
    return wrap_int(t, ~ux);
  case FLOOR:
  case CEIL:
  case ROUND:
    return x;
  case RELU:
    return x > 0 ? x : 0;
  case CLAMP:
    if (c->has_min && x < int_bound(t, c->min))
      x = int_bound(t, c->min);
    if (c->has_max && x > int_bound(t, c->max))
      x = int_bound(t, c->max);
    return x;
  case ADD:
    return wrap_int(t, ux + uy);
  case SUB:
    return wrap_int(t, ux - uy);
  case MUL:
    return wrap_int(t, ux * uy);
  case DIV:
    if (y == 0)
      return 0;
    if (y == -1) /* INT_MIN / -1 wraps to INT_MIN */
      return wrap_int(t, 0 - ux);
    return x / y;
  case MOD: {
    if (y == 0 || y == -1)
      return 0;
    int64_t r = x % y;
    return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
  }
  case FMOD: /* C's %: the sign of the dividend */
    return y == 0 || y == -1 ? 0 : x % y;
  case POW:
    if (is_signed && y < 0)
      return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    return wrap_int(t, int_pow(ux, uy));
  case MAX:
    return x > y ? x : y;
  case MIN:
    return x < y ? x : y;
  case AND:
    return wrap_int(t, ux & uy);
  case OR:
    return wrap_int(t, ux | uy);
  case XOR:
    return wrap_int(t, ux ^ uy);
  default:
    break;
  }
  fprintf(stderr, "no integer reference for %s\n", c->name);
  exit(2);
}

/* The unsigned dtypes, computed in uint64_t and wrapped to the width
 * (docs/ops.md): every comparison, division and remainder unsigned. */
static uint64_t ref_uint(const struct test_case *c, enum dtype t, uint64_t x,
                         uint64_t y) {
  int width = int_width(t);
  uint64_t mask = width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;
  switch (c->kind) {
  case NEG:
    return (0 - x) & mask;
  case ABS:
  case FLOOR:
  case CEIL:
  case ROUND:
  case RELU:
    return x;
  case SIGN:
    return x != 0;
  case NOT:
    return ~x & mask;
  case CLAMP:
    if (c->has_min && x < uint_bound(t, c->min))
      x = uint_bound(t, c->min);
    if (c->has_max && x > uint_bound(t, c->max))
      x = uint_bound(t, c->max);
    return x;
  case ADD:
    return (x + y) & mask;
  case SUB:
    return (x - y) & mask;
  case MUL:
    return (x * y) & mask;
  case DIV:
    return y == 0 ? 0 : x / y;
  case MOD:
  case FMOD:
    return y == 0 ? 0 : x % y;
  case POW:
    return int_pow(x, y) & mask;
  case MAX:
    return x > y ? x : y;
  case MIN:
    return x < y ? x : y;
  case AND:
    return x & y;
  case OR:
    return x | y;
  case XOR:
    return x ^ y;
  case SHL:
    return y >= (uint64_t)width ? 0 : (x << y) & mask;
  case SHR:
    return y >= (uint64_t)width ? 0 : x >> y;
  default:
    break;
  }
  fprintf(stderr, "no unsigned reference for %s\n", c->name);
  exit(2);
}

static int ref_compare(enum op_kind kind, long double x, long double y) {
  switch (kind) {
  case EQ:
    return x == y;
  case NE:
    return x != y;
  case LT:
    return x < y;
  case LE:
    return x <= y;
  case GT:
    return x > y;
  default:
    return x >= y;
  }
}

/* The expected element of case c from its operand elements. */
static void reference(const struct test_case *c, enum dtype t,
                      const void *const *args, void *out) {
  if (c->kind == SELECT) {
    memcpy(out, load_int(BOOL, args[0]) ? args[1] : args[2],
           (size_t)dtype_sizes[t]);
    return;
  }
  int binary = c->operands[1] != 0;
  if (is_comparison(c->kind)) {
    long double x = is_float(t) ? load_float(t, args[0]) : int_value(t, args[0]);
    long double y = is_float(t) ? load_float(t, args[1]) : int_value(t, args[1]);
    store_int(BOOL, out, (uint64_t)ref_compare(c->kind, x, y));
    return;
  }
  if (is_unsigned_int(t)) {
    uint64_t y = binary ? load_uint(t, args[1]) : 0;
    store_int(t, out, ref_uint(c, t, load_uint(t, args[0]), y));
    return;
  }
  if (!is_float(t)) {
    int64_t y = binary ? load_int(t, args[1]) : 0;
    store_int(t, out, (uint64_t)ref_int(c, t, load_int(t, args[0]), y));
    return;
  }
  long double x = load_float(t, args[0]);
  long double y = binary ? load_float(t, args[1]) : 0;
  long double lo = float_bound(t, c->min), hi = float_bound(t, c->max);
  if (t == F64)
    store_float(t, out,
                binary ? ref_binary(c, (double)x, (double)y)
                       : ref_unary(c, (double)x, (double)lo, (double)hi));
  else
    store_float(t, out,
                binary ? ref_binaryf(c, (float)x, (float)y)
                       : ref_unaryf(c, (float)x, (float)lo, (float)hi));
}

/* The ops checked against the mathematical function. */
static int has_exact_value(enum op_kind kind) {
  switch (kind) {
  case EXP:
  case LOG:
  case LOG1P:
  case SQRT:
  case RSQRT:
  case RECIPROCAL:
  case TANH:
  case SIGMOID:
  case ERF:
  case SIN:
  case COS:
  case TAN:
  case ASIN:
  case ACOS:
  case ATAN:
  case SINH:
  case COSH:
  case ASINH:
  case ACOSH:
  case ATANH:
  case SILU:
  case GELU:
  case GELU_TANH:
  case POW:
    return 1;
  default:
    return 0;
  }
}

/* The mathematical function of the transcendental ops, in long double. */
static long double exact_value(const struct test_case *c, long double x,
                               long double y) {
  switch (c->kind) {
  case EXP:
    return expl(x);
  case LOG:
    return logl(x);
  case LOG1P:
    return log1pl(x);
  case SQRT:
    return sqrtl(x);
  case RSQRT:
    return 1 / sqrtl(x);
  case RECIPROCAL:
    return 1 / x;
  case TANH:
    return tanhl(x);
  case SIGMOID:
    return 1 / (1 + expl(-x));
  case ERF:
    return erfl(x);
  case SIN:
    return sinl(x);
  case COS:
    return cosl(x);
  case TAN:
    return tanl(x);
  case ASIN:
    return asinl(x);
  case ACOS:
    return acosl(x);
  case ATAN:
    return atanl(x);
  case SINH:
    return sinhl(x);
  case COSH:
    return coshl(x);
  case ASINH:
    return asinhl(x);
  case ACOSH:
    return acoshl(x);
  case ATANH:
    return atanhl(x);
  case SILU:
    return x / (1 + expl(-x));
  case GELU:
    return 0.5L * x * (1 + erfl(x / sqrtl(2)));
  case GELU_TANH:
    return 0.5L * x *
           (1 + tanhl(sqrtl(2 / acosl(-1)) * (x + 0.044715L * x * x * x)));
  case POW:
    return powl(x, y);
  default:
    return NAN;
  }
}

static long double ulp(enum dtype t, long double v) {
  const int mantissas[] = {23, 52, 10, 7},
            min_exponents[] = {-126, -1022, -14, -126};
  int mantissa = mantissas[t], min_exponent = min_exponents[t];
  int e;
  frexpl(fabsl(v), &e);
  return ldexpl(1, (e - 1 < min_exponent ? min_exponent : e - 1) - mantissa);
}

/* Checks a float result against the mathematical function: within 4 ulp
 * of the exact value, plus 4 ulp of x for the ops that cancel (gelu, silu)
 * or overflow in exp (sigmoid, silu) where the exact value is tiny. */
static int accurate(const struct test_case *c, enum dtype t,
                    const void *const *args, const void *got) {
  if (!has_exact_value(c->kind))
    return 1;
  long double x = load_float(t, args[0]);
  long double y = c->operands[1] ? load_float(t, args[1]) : 0;
  long double exact = exact_value(c, x, y);
  long double value = load_float(t, got);
  char rounded[8];
  store_float(t, rounded, exact);
  if (isnan(value) || isinf(value) || isnan(exact) || isinf(exact))
    return same_element(t, rounded, got);
  long double tolerance = 4 * ulp(t, exact);
  if (c->kind == GELU || c->kind == GELU_TANH || c->kind == SILU ||
      c->kind == SIGMOID)
    tolerance += 4 * ulp(t, x);
  return fabsl(value - exact) <= tolerance;
}

/*===--- running
 * -----------------------------------------------------------===*/

static txc_tensor describe(void *data, enum dtype t, int64_t d0, int64_t d1,
                           int rank) {
  txc_tensor tensor;
  memset(&tensor, 0, sizeof tensor);
  tensor.data = data;
  tensor.size_bytes = (rank == 2 ? d0 * d1 : d0) * dtype_sizes[t];
  tensor.dtype = dtype_codes[t];
  tensor.rank = rank;
  tensor.dims[0] = d0;
  tensor.dims[1] = d1;
  return tensor;
}

struct inputs {
  char *x, *y, *r, *k, *c, *d;
};

static struct inputs make_inputs(enum dtype t, int64_t batch) {
  struct inputs in;
  size_t size = (size_t)dtype_sizes[t];
  in.x = malloc((size_t)batch * 256 * size);
  in.y = malloc((size_t)batch * 256 * size);
  in.r = malloc(256 * size);
  in.k = malloc((size_t)batch * size);
  in.c = malloc((size_t)batch * 256);
  in.d = malloc((size_t)batch);
  for (int64_t k = 0; k < batch * 256; ++k) {
    input_value(t, 0, k, in.x + k * size);
    input_value(t, 1, k, in.y + k * size);
    rng_state = (uint64_t)k * 7919;
    in.c[k] = (char)(next_random() & 1);
  }
  for (int64_t j = 0; j < 256; ++j)
    input_value(t, 2, j * 17, in.r + j * size);
  for (int64_t i = 0; i < batch; ++i) {
    input_value(t, 3, i * 16 + 3, in.k + i * size);
    in.d[i] = (char)(i & 1);
  }
  return in;
}

/* The element of operand `letter` used for result element (i, j). */
static const void *operand_element(const struct inputs *in, enum dtype t,
                                   char letter, int64_t i, int64_t j) {
  size_t size = (size_t)dtype_sizes[t];
  switch (letter) {
  case 'X':
    return in->x + (size_t)(i * 256 + j) * size;
  case 'Y':
    return in->y + (size_t)(i * 256 + j) * size;
  case 'R':
    return in->r + (size_t)j * size;
  case 'K':
    return in->k + (size_t)i * size;
  case 'C':
    return in->c + i * 256 + j;
  default:
    return in->d + i;
  }
}

/* With --approximate-math, f32 transcendental functions (also those that
 * f16 and bf16 compute in f32) are only checked for accuracy: -O2 may
 * replace them by polynomial approximations on vectors. */
static int approximate_math;

static int approximated(const struct test_case *c, enum dtype t) {
  return approximate_math && t != F64 && has_exact_value(c->kind) &&
         c->kind != SQRT && c->kind != RECIPROCAL && c->kind != POW;
}

static int check_case(const struct test_case *c, enum dtype t,
                      const struct inputs *in, int64_t batch, const char *out) {
  enum dtype rt = result_dtype(c, t);
  size_t size = (size_t)dtype_sizes[rt];
  int reported = 0;
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t j = 0; j < 256; ++j) {
      const void *args[3];
      for (int a = 0; c->operands[a]; ++a) {
        char letter = c->operands[a];
        enum dtype at = letter == 'C' || letter == 'D' ? BOOL : t;
        args[a] = operand_element(in, at, letter, i, j);
      }
      char expected[8];
      const char *got = out + (size_t)(i * 256 + j) * size;
      reference(c, t, args, expected);
      int ok = approximated(c, t) || same_element(rt, expected, got);
      int exact_ok = !(t == F32 || t == F64 || approximated(c, t)) ||
                     accurate(c, t, args, got);
      if ((ok && exact_ok) || reported >= 5)
        continue;
      char sx[64], sy[64] = "", se[64], sg[64];
      format_element(c->kind == SELECT ? BOOL : t, args[0], sx, sizeof sx);
      if (c->operands[1])
        format_element(t, args[1], sy, sizeof sy);
      format_element(rt, expected, se, sizeof se);
      format_element(rt, got, sg, sizeof sg);
      fprintf(
          stderr, "FAILED %s %s B=%lld [%lld,%lld] x=%s y=%s: %s %s, got %s\n",
          dtype_names[t], c->name, (long long)batch, (long long)i, (long long)j,
          sx, sy, ok ? "inaccurate, reference" : "expected", se, sg);
      ++reported;
      ++failures;
    }
  return reported == 0;
}

static void run(enum dtype t, int64_t batch) {
  struct inputs in = make_inputs(t, batch);
  txc_tensor inputs[K_NUM_INPUTS];
  inputs[K_INPUT_X] = describe(in.x, t, batch, 256, 2);
  inputs[K_INPUT_Y] = describe(in.y, t, batch, 256, 2);
  inputs[K_INPUT_R] = describe(in.r, t, 256, 0, 1);
  inputs[K_INPUT_K] = describe(in.k, t, batch, 1, 2);
  inputs[K_INPUT_C] = describe(in.c, BOOL, batch, 256, 2);
  inputs[K_INPUT_D] = describe(in.d, BOOL, batch, 1, 2);

  txc_tensor outputs[K_NUM_OUTPUTS];
  char *buffers[K_NUM_OUTPUTS];
  int n = 0;
  for (int i = 0; i < NUM_CASES; ++i) {
    if (!accepted(&cases[i], t))
      continue;
    if (n == K_NUM_OUTPUTS) {
      fprintf(stderr, "the program has fewer outputs than the cases\n");
      exit(1);
    }
    enum dtype rt = result_dtype(&cases[i], t);
    size_t bytes = (size_t)batch * 256 * (size_t)dtype_sizes[rt];
    buffers[n] = malloc(bytes);
    memset(buffers[n], 0xA5, bytes);
    outputs[n] = describe(buffers[n], rt, batch, 256, 2);
    ++n;
  }
  if (n != K_NUM_OUTPUTS) {
    fprintf(stderr, "the program has more outputs than the cases\n");
    exit(1);
  }
  txc_status status;
  int rc = k_run(inputs, K_NUM_INPUTS, outputs, K_NUM_OUTPUTS, &status);
  if (rc != TXC_OK) {
    fprintf(stderr, "B=%lld: k_run failed with %d\n", (long long)batch, rc);
    exit(1);
  }
  int ok = 1;
  n = 0;
  for (int i = 0; i < NUM_CASES; ++i) {
    if (!accepted(&cases[i], t))
      continue;
    enum dtype rt = result_dtype(&cases[i], t);
    if (outputs[n].dtype != dtype_codes[rt] || outputs[n].rank != 2 ||
        outputs[n].dims[0] != batch || outputs[n].dims[1] != 256) {
      fprintf(stderr, "FAILED %s: wrong output descriptor\n", cases[i].name);
      ++failures;
    }
    ok &= check_case(&cases[i], t, &in, batch, buffers[n]);
    free(buffers[n++]);
  }
  if (ok)
    printf("B=%lld ok: %d ops, %lld elements each\n", (long long)batch, n,
           (long long)batch * 256);
  free(in.x), free(in.y), free(in.r), free(in.k), free(in.c), free(in.d);
}

#endif /* WITH_KERNEL */

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "gen") == 0) {
    generate(parse_dtype(argv[2]), argc >= 4 && !strcmp(argv[3], "shapes"));
    return 0;
  }
#ifdef WITH_KERNEL
  if (argc >= 4 && strcmp(argv[1], "run") == 0) {
    enum dtype t = parse_dtype(argv[2]);
    if (strcmp(argv[3], "--approximate-math") == 0) {
      approximate_math = 1;
      ++argv, --argc;
    }
    if (K_INPUT_X_DTYPE != dtype_codes[t]) {
      fprintf(stderr, "the program was generated for another dtype\n");
      return 1;
    }
    for (int i = 3; i < argc; ++i)
      run(t, atoll(argv[i]));
    fail_report();
    if (!failures)
      printf("all checks passed\n");
    return failures != 0;
  }
#endif
  fprintf(
      stderr,
      "usage: %s gen DTYPE [shapes] | run DTYPE [--approximate-math] B...\n",
      argv[0]);
  return 2;
}
