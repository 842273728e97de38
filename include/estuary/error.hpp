// estuary::Error: what estuary's C++ code throws, in the library's own layers, in interop/ and in
// the header-only C++ API (estuary.hpp): a status (estuary.h's ESTUARY_ERROR_*: 1 runtime failure,
// 2 bad usage, 3 unsupported environment, 5 out of memory, 6 device lost, 7 timeout, 8 invalid
// handle; non-zero, so `return e.status();` is a failing exit) and a message naming what failed,
// why, and what is allowed. Never thrown from a destructor of estuary.hpp. C++17, no other
// dependency.
#ifndef ESTUARY_ERROR_HPP
#define ESTUARY_ERROR_HPP

#include "estuary.h"

#include <stdexcept>
#include <string>

namespace estuary {

class Error : public std::runtime_error {
  public:
    Error(estuary_status status, const std::string& message)
        : std::runtime_error(message), status_(status) {}
    estuary_status status() const noexcept { return status_; }

  private:
    estuary_status status_;
};

// Throws estuary::Error with estuary_last_error()'s message unless `status` is ESTUARY_OK (or,
// with allowNotReady, ESTUARY_NOT_READY); returns the status otherwise.
inline estuary_status check(estuary_status status, bool allowNotReady = false) {
    if (status == ESTUARY_OK || (allowNotReady && status == ESTUARY_NOT_READY)) return status;
    throw Error(status, estuary_last_error());
}

} // namespace estuary

#endif // ESTUARY_ERROR_HPP
