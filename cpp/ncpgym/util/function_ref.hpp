// A non-owning reference to a callable, for callbacks inside a time step: std::function
// may allocate when it stores a lambda with several captures, and a step must not touch
// the heap. Written here because the standard's std::function_ref arrives only in C++26.
#pragma once

#include <type_traits>
#include <utility>

namespace ncpgym {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  FunctionRef() = default;
  // The callable must outlive this reference (pass lambdas that live in the caller).
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F& f)
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, Args... a) -> R { return (*static_cast<F*>(o))(std::forward<Args>(a)...); }) {}
  explicit operator bool() const { return call_ != nullptr; }
  R operator()(Args... a) const { return call_(obj_, std::forward<Args>(a)...); }

 private:
  void* obj_ = nullptr;
  R (*call_)(void*, Args...) = nullptr;
};

}  // namespace ncpgym
