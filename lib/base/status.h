// rp::Status and rp::Expected<T>: how library code reports failure.
//
// Library code never prints or exits; it returns a Status (or a value or a
// Status) and the binary's main() maps it to a message and an exit code.
// The code says which exit code a failure deserves: kInput (bad input or
// usage, exit 2) or kNothing (ran fine, found nothing usable, exit 1).
//
//   rp::Expected<Config> Parse(std::string_view text);
//   rp::Status Load(...) {
//     RP_ASSIGN_OR_RETURN(Config config, Parse(text));
//     RP_RETURN_IF_ERROR(Validate(config));
//     return rp::OkStatus();
//   }
#ifndef RP_LIB_BASE_STATUS_H_
#define RP_LIB_BASE_STATUS_H_

#include <cassert>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace rp {

enum class StatusCode {
  kOk = 0,
  kNothing = 1,  // analysis found nothing usable
  kInput = 2,    // bad input, bad usage, I/O failure
};

// One pointer: an OK status, what nearly every call returns (once per
// record on the read path), is a null pointer to make, test and drop; a
// failure's code and message live behind it.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : rep_(code == StatusCode::kOk && message.empty() ? nullptr : new Rep{code, std::move(message)}) {}
  Status(const Status& o) : rep_(o.rep_ ? new Rep(*o.rep_) : nullptr) {}
  Status& operator=(const Status& o) {
    if (this != &o) rep_.reset(o.rep_ ? new Rep(*o.rep_) : nullptr);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  bool ok() const { return rep_ == nullptr || rep_->code == StatusCode::kOk; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  const std::string& message() const {
    static const std::string kNone;
    return rep_ ? rep_->message : kNone;
  }
  int exit_code() const { return static_cast<int>(code()); }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;
};

inline Status OkStatus() { return Status(); }
inline Status InputError(std::string message) {
  return Status(StatusCode::kInput, std::move(message));
}
inline Status NothingError(std::string message) {
  return Status(StatusCode::kNothing, std::move(message));
}

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Status status) : value_(std::move(status)) {
    assert(!std::get<Status>(value_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? OkStatus() : std::get<Status>(value_); }
  T& value() & { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> value_;
};

}  // namespace rp

#define RP_STATUS_CONCAT_INNER(a, b) a##b
#define RP_STATUS_CONCAT(a, b) RP_STATUS_CONCAT_INNER(a, b)

#define RP_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::rp::Status rp_status_ = (expr);         \
    if (!rp_status_.ok()) return rp_status_;  \
  } while (0)

#define RP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#define RP_ASSIGN_OR_RETURN(lhs, expr) \
  RP_ASSIGN_OR_RETURN_IMPL(RP_STATUS_CONCAT(rp_expected_, __LINE__), lhs, expr)

#endif  // RP_LIB_BASE_STATUS_H_
