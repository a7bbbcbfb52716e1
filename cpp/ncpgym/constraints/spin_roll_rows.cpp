#include "ncpgym/constraints/spin_roll_rows.hpp"

#include "ncpgym/collision/contact_params.hpp"
#include "ncpgym/constraints/jacobian_rows.hpp"

namespace ncpgym {

int spin_roll_layout(const std::vector<Contact>& contacts, std::vector<int>& spin_start) {
  spin_start.resize(contacts.size() + 1);
  int n = 0;
  for (size_t c = 0; c < contacts.size(); ++c) {
    spin_start[c] = n;
    n += extra_friction_rows(contacts[c].condim);
  }
  spin_start[contacts.size()] = n;
  return n;
}

void spin_roll_rows(const Model& m, const Data& d, const std::vector<Contact>& contacts, Rows& rows) {
  for (const Contact& k : contacts) {
    const int n = extra_friction_rows(k.condim);
    if (n == 0) continue;
    // torsion about the normal, then rolling about the tangents: body A's angular velocity
    // less body B's along each direction (the normal points from B to A)
    const Vec3 dirs[3] = {k.normal, k.tangent1, k.tangent2};
    for (int i = 0; i < n; ++i) {
      add_rotation_row(m, d, k.body1, dirs[i], 1.0, rows.J);
      add_rotation_row(m, d, k.body2, dirs[i], -1.0, rows.J);
      rows.J.end_row();
    }
  }
}

}  // namespace ncpgym
