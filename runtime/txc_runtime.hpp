/* txc_runtime.hpp: the C++ definitions every C++ header txc generates
   shares (docs/abi.md, "C++ API"): txc::Shape, txc::TensorView,
   txc::Status, txc::Result, txc::Workspace. A program's own header defines
   the same (guarded by TXC_CXX_API_VERSION), so both can be included.
   Written by txc's CxxHeaderEmitter (emitCxxRuntimeHeader). */
#ifndef TXC_RUNTIME_HPP
#define TXC_RUNTIME_HPP

#include "txc_runtime.h"

#ifndef TXC_CXX_API_VERSION
#define TXC_CXX_API_VERSION 1

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#ifdef TXC_CXX_EXCEPTIONS
#include <stdexcept>
#endif

namespace txc {

/* The 16-bit float types, as their bits. */
struct f16 { std::uint16_t bits; };
struct bf16 { std::uint16_t bits; };

/* The dtype code of an element type. */
template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr std::int32_t value = TXC_DTYPE_F32; };
template <> struct dtype_of<double> { static constexpr std::int32_t value = TXC_DTYPE_F64; };
template <> struct dtype_of<f16> { static constexpr std::int32_t value = TXC_DTYPE_F16; };
template <> struct dtype_of<bf16> { static constexpr std::int32_t value = TXC_DTYPE_BF16; };
template <> struct dtype_of<std::int8_t> { static constexpr std::int32_t value = TXC_DTYPE_I8; };
template <> struct dtype_of<std::int16_t> { static constexpr std::int32_t value = TXC_DTYPE_I16; };
template <> struct dtype_of<std::int32_t> { static constexpr std::int32_t value = TXC_DTYPE_I32; };
template <> struct dtype_of<std::int64_t> { static constexpr std::int32_t value = TXC_DTYPE_I64; };
template <> struct dtype_of<std::uint8_t> { static constexpr std::int32_t value = TXC_DTYPE_U8; };
template <> struct dtype_of<std::uint16_t> { static constexpr std::int32_t value = TXC_DTYPE_U16; };
template <> struct dtype_of<std::uint32_t> { static constexpr std::int32_t value = TXC_DTYPE_U32; };
template <> struct dtype_of<std::uint64_t> { static constexpr std::int32_t value = TXC_DTYPE_U64; };
template <> struct dtype_of<bool> { static constexpr std::int32_t value = TXC_DTYPE_BOOL; };
static_assert(sizeof(bool) == 1, "txc's bool elements are one byte");

/* A tensor's dimensions, outermost first. */
class Shape {
public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) {
    for (std::int64_t dim : dims)
      if (rank_ < TXC_MAX_RANK)
        dims_[rank_++] = dim;
  }
  Shape(const std::int64_t *dims, std::int32_t rank) {
    for (std::int32_t d = 0; d < rank && d < TXC_MAX_RANK; ++d)
      dims_[rank_++] = dims[d];
  }
  std::int32_t rank() const { return rank_; }
  std::int64_t operator[](std::int32_t d) const { return dims_[d]; }
  const std::int64_t *begin() const { return dims_; }
  const std::int64_t *end() const { return dims_ + rank_; }
  /* The number of elements (1 for rank 0). */
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (std::int64_t dim : *this)
      n *= dim;
    return n;
  }
  friend bool operator==(const Shape &a, const Shape &b) {
    if (a.rank_ != b.rank_)
      return false;
    for (std::int32_t d = 0; d < a.rank_; ++d)
      if (a.dims_[d] != b.dims_[d])
        return false;
    return true;
  }
  friend bool operator!=(const Shape &a, const Shape &b) { return !(a == b); }

private:
  std::int32_t rank_ = 0;
  std::int64_t dims_[TXC_MAX_RANK] = {};
};

/* A typed view of a caller's buffer: `size` elements at `data`, and the
   tensor's shape (an output's is written by the call). T is const for
   inputs. The buffer must outlive the calls that use the view. */
template <class T> class TensorView {
public:
  using element_type = T;
  using value_type = typename std::remove_cv<T>::type;

  TensorView() = default;
  TensorView(T *data, std::size_t size, Shape shape = Shape())
      : data_(data), size_(size), shape_(shape) {}
  /* A contiguous container: std::vector, std::array, ... */
  template <class Container,
            class = decltype(std::declval<Container &>().data()),
            class = typename std::enable_if<!std::is_same<
                typename std::decay<Container>::type, TensorView>::value>::type>
  TensorView(Container &container, Shape shape = Shape())
      : data_(container.data()), size_(container.size()), shape_(shape) {}

  T *data() const { return data_; }
  std::size_t size() const { return size_; }
  const Shape &shape() const { return shape_; }
  void set_shape(const Shape &shape) { shape_ = shape; }
  T &operator[](std::size_t i) const { return data_[i]; }
  T *begin() const { return data_; }
  /* The end of the tensor's elements (of its shape, not of the buffer). */
  T *end() const { return data_ + shape_.elements(); }

  /* The C descriptor of the view. */
  txc_tensor descriptor() const {
    txc_tensor t = {};
    t.data = const_cast<value_type *>(data_);
    t.size_bytes = static_cast<std::int64_t>(size_ * sizeof(T));
    t.dtype = dtype_of<value_type>::value;
    t.rank = shape_.rank();
    for (std::int32_t d = 0; d < shape_.rank(); ++d)
      t.dims[d] = shape_[d];
    return t;
  }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
  Shape shape_;
};

/* What a call reports: TXC_OK, or the failed guard's status and message. */
class Status {
public:
  Status() { status_.code = TXC_OK; status_.guard = -1; status_.variant = 0; }
  Status(const txc_status &status, std::string message)
      : status_(status), message_(std::move(message)) {}

  bool ok() const { return status_.code == TXC_OK; }
  explicit operator bool() const { return ok(); }
  std::int32_t code() const { return status_.code; }
  /* The failed guard's id (the manifest's "guards"), or -1. */
  std::int32_t guard() const { return status_.guard; }
  /* The code that ran: 0 the generic code, a variant's id
     (<P>_VARIANT_*), -1 none (docs/specialization.md). */
  std::int32_t variant() const { return status_.variant; }
  /* The message of <p>_error_message: "" when ok. */
  const std::string &message() const { return message_; }
  const txc_status &raw() const { return status_; }

private:
  txc_status status_ = {};
  std::string message_;
};

#ifdef TXC_CXX_EXCEPTIONS
/* Thrown by Result::value_or_throw and throw_if_error. */
class Error : public std::runtime_error {
public:
  explicit Error(Status status)
      : std::runtime_error(status.message()), status_(std::move(status)) {}
  const Status &status() const { return status_; }

private:
  Status status_;
};
inline void throw_if_error(const Status &status) {
  if (!status.ok())
    throw Error(status);
}
#endif

/* A value, or the Status of the call that could not make it. */
template <class T> class Result {
public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {}

  bool ok() const { return status_.ok(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }
  /* Only when ok(). */
  const T &value() const { return value_; }
  T &value() { return value_; }
  const T &operator*() const { return value_; }
  const T *operator->() const { return &value_; }
#ifdef TXC_CXX_EXCEPTIONS
  const T &value_or_throw() const {
    throw_if_error(status_);
    return value_;
  }
#endif

private:
  Status status_;
  T value_{};
};

/* Scratch memory of `bytes` bytes aligned to 64 (<P>_WORKSPACE_ALIGN),
   owned; a Program's calls compute in it. Null when bytes is 0 or the allocation
   failed (the call then returns TXC_E_WORKSPACE). */
class Workspace {
public:
  static constexpr std::size_t alignment = 64;

  explicit Workspace(std::size_t bytes = 0) : bytes_(bytes) {
    if (bytes)
      data_ = ::operator new(bytes, std::align_val_t(alignment),
                             std::nothrow);
  }
  Workspace(Workspace &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)) {}
  Workspace &operator=(Workspace &&other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;
  ~Workspace() {
    if (data_)
      ::operator delete(data_, std::align_val_t(alignment));
  }
  void *data() const { return data_; }
  std::size_t size() const { return data_ ? bytes_ : 0; }

private:
  void *data_ = nullptr;
  std::size_t bytes_ = 0;
};

/* The message <p>_error_message writes for `status`. */
template <class MessageFunction>
std::string error_message(MessageFunction message, const txc_status &status) {
  std::int32_t length = message(&status, nullptr, 0);
  if (length <= 0)
    return std::string();
  std::string text(static_cast<std::size_t>(length) + 1, '\0');
  message(&status, &text[0], text.size());
  text.resize(static_cast<std::size_t>(length));
  return text;
}

} // namespace txc

#endif /* TXC_CXX_API_VERSION */

#endif /* TXC_RUNTIME_HPP */
