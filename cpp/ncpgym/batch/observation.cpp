#include "ncpgym/batch/observation.hpp"

#include <algorithm>
#include <stdexcept>

#include "ncpgym/batch/batch.hpp"

namespace ncpgym {

namespace {
struct Named {
  const char* name;
  ObsField field;
};
constexpr Named kFields[] = {{"q", ObsField::Q},           {"u", ObsField::U},
                             {"xpos", ObsField::XPOS},     {"xquat", ObsField::XQUAT},
                             {"xipos", ObsField::XIPOS},   {"cinert", ObsField::CINERT},
                             {"cvel", ObsField::CVEL},     {"cfrc_ext", ObsField::CFRC_EXT},
                             {"qfrc_actuator", ObsField::QFRC_ACTUATOR}, {"site_xpos", ObsField::SITE_XPOS}};
}  // namespace

ObsField obs_field(const std::string& name) {
  for (const Named& f : kFields)
    if (name == f.name) return f.field;
  std::string known;
  for (const Named& f : kFields) known += std::string(known.empty() ? "" : ", ") + f.name;
  throw std::invalid_argument("observation: unknown field '" + name + "' (known: " + known + ")");
}

const char* obs_field_name(ObsField f) {
  for (const Named& n : kFields)
    if (n.field == f) return n.name;
  return "?";
}

Batch::FieldRows Batch::field(ObsField f) const {
  // each field: its Batch array and the numbers per world (one place for both)
  const Model& m = *base_;
  switch (f) {
    case ObsField::Q: return {&q_, m.nq};
    case ObsField::U: return {&u_, m.nv};
    case ObsField::XPOS: return {&xpos_, 3 * m.nbody};
    case ObsField::XQUAT: return {&xquat_, 4 * m.nbody};
    case ObsField::XIPOS: return {&xipos_, 3 * m.nbody};
    case ObsField::CINERT: return {&cinert_, 10 * m.nbody};
    case ObsField::CVEL: return {&cvel_, 6 * m.nbody};
    case ObsField::CFRC_EXT: return {&cfrc_ext_, 6 * m.nbody};
    case ObsField::QFRC_ACTUATOR: return {&qfrc_act_, m.nv};
    case ObsField::SITE_XPOS: return {&site_xpos_, 3 * m.nsite};
  }
  throw std::invalid_argument("observation: unknown field");
}

void Batch::set_observation(const std::vector<ObsSegment>& segments) {
  int dim = 0;
  for (const ObsSegment& s : segments) {
    const int size = field(s.field).per_world;
    if (s.offset < 0 || s.length < 0 || s.offset + s.length > size)
      throw std::invalid_argument(std::string("observation: segment of '") + obs_field_name(s.field) + "' [" +
                                  std::to_string(s.offset) + ", " + std::to_string(s.offset + s.length) +
                                  ") outside its " + std::to_string(size) + " numbers per world");
    dim += s.length;
  }
  obs_segments_ = segments;
  obs_dim_ = dim;
  obs_.assign(static_cast<size_t>(n_) * dim, 0.0);
  for (int i = 0; i < n_; ++i) gather_observation(i);
}

void Batch::gather_observation(int i) {
  double* out = obs_.data() + static_cast<size_t>(i) * obs_dim_;
  for (const ObsSegment& s : obs_segments_) {
    const FieldRows f = field(s.field);
    const double* src = f.data->data() + static_cast<size_t>(i) * f.per_world + s.offset;
    out = std::copy(src, src + s.length, out);
  }
}

}  // namespace ncpgym
