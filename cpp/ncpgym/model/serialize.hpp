// A Model as bytes and back (pickling, copies between processes): every field, in the
// order model/serialize.cpp lists them once for both directions. Bytes are this build's
// (native endianness, no compatibility across ncpgym versions): a header with a magic
// tag, a format version and the length lets a foreign or truncated buffer fail clearly.
#pragma once

#include <string>

#include "ncpgym/model/model.hpp"

namespace ncpgym {

std::string serialize_model(const Model& m);

// Throws std::invalid_argument naming what is wrong with `bytes` (not a model, another
// format version, truncated, trailing data).
Model deserialize_model(const std::string& bytes);

}  // namespace ncpgym
