#include "ncpgym/model/model.hpp"

#include <stdexcept>

namespace ncpgym {

namespace {
int find_name(const std::vector<std::string>& names, const std::string& name, const char* kind) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw std::out_of_range(std::string("unknown ") + kind + " name '" + name + "'");
}
}  // namespace

int Model::body_id(const std::string& name) const { return find_name(body_name, name, "body"); }
int Model::joint_id(const std::string& name) const { return find_name(jnt_name, name, "joint"); }
int Model::site_id(const std::string& name) const { return find_name(site_name, name, "site"); }
int Model::geom_id(const std::string& name) const { return find_name(geom_name, name, "geom"); }
int Model::actuator_id(const std::string& name) const {
  return find_name(act_name, name, "actuator");
}

int Model::equality_id(const std::string& name) const {
  return find_name(eq_name, name, "equality");
}

double Model::total_mass() const {
  double m = 0;
  for (double b : body_mass) m += b;
  return m;
}

}  // namespace ncpgym
