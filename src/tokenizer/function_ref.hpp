// A non-owning reference to a callable: the pipeline passes pieces of text down through
// normalizers, pre-tokenizers and the model with callbacks instead of building vectors per call.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace infermark::tokenizer {

template <class Signature>
class FunctionRef;

/// Refers to a callable for the duration of a call; never store one beyond that.
template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  /// Wraps `callable`, which must outlive this reference.
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& callable) noexcept  // NOLINT(google-explicit-constructor): used like a lambda parameter
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(callable)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}

  /// Calls the referenced callable.
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace infermark::tokenizer
