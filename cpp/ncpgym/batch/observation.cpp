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

int Batch::field_size(ObsField f) const {
  const Model& m = *base_;
  switch (f) {
    case ObsField::Q: return m.nq;
    case ObsField::U: return m.nv;
    case ObsField::XPOS: return 3 * m.nbody;
    case ObsField::XQUAT: return 4 * m.nbody;
    case ObsField::XIPOS: return 3 * m.nbody;
    case ObsField::CINERT: return 10 * m.nbody;
    case ObsField::CVEL: return 6 * m.nbody;
    case ObsField::CFRC_EXT: return 6 * m.nbody;
    case ObsField::QFRC_ACTUATOR: return m.nv;
    case ObsField::SITE_XPOS: return 3 * m.nsite;
  }
  return 0;
}

const double* Batch::field_row(ObsField f, int i) const {
  const size_t row = static_cast<size_t>(i) * field_size(f);
  switch (f) {
    case ObsField::Q: return q_.data() + row;
    case ObsField::U: return u_.data() + row;
    case ObsField::XPOS: return xpos_.data() + row;
    case ObsField::XQUAT: return xquat_.data() + row;
    case ObsField::XIPOS: return xipos_.data() + row;
    case ObsField::CINERT: return cinert_.data() + row;
    case ObsField::CVEL: return cvel_.data() + row;
    case ObsField::CFRC_EXT: return cfrc_ext_.data() + row;
    case ObsField::QFRC_ACTUATOR: return qfrc_act_.data() + row;
    case ObsField::SITE_XPOS: return site_xpos_.data() + row;
  }
  return nullptr;
}

void Batch::set_observation(const std::vector<ObsSegment>& segments) {
  int dim = 0;
  for (const ObsSegment& s : segments) {
    const int size = field_size(s.field);
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
    const double* src = field_row(s.field, i) + s.offset;
    out = std::copy(src, src + s.length, out);
  }
}

}  // namespace ncpgym
