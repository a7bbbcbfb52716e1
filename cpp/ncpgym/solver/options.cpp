#include "ncpgym/solver/options.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ncpgym {

namespace {
void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}
}  // namespace

SolverOptions resolve(const Model& m, SolverOptions o) {
  require(o.newton_iterations >= 0 && o.linear_iterations >= 0,
          "newton_iterations and linear_iterations must be >= 1 (0: the model's or the default)");
  if (o.newton_iterations == 0) o.newton_iterations = m.newton_iterations > 0 ? m.newton_iterations : kDefaultNewtonIterations;
  if (o.linear_iterations == 0) o.linear_iterations = m.linear_iterations > 0 ? m.linear_iterations : kDefaultLinearIterations;
  require(std::isfinite(o.timestep) && o.timestep >= 0, "timestep must be >= 0 and finite (0: the model's)");
  if (o.timestep == 0) o.timestep = m.timestep;
  require(o.timestep > 0, "the model's timestep must be positive");
  require(o.step > 0 && o.step <= 1, "step must be in (0, 1]");
  require(o.regularization >= 0 && std::isfinite(o.regularization), "regularization must be >= 0 and finite");
  require(o.proximal >= 0 && std::isfinite(o.proximal), "proximal must be >= 0 and finite (0: off)");
  require(o.tolerance >= 0 && std::isfinite(o.tolerance), "tolerance must be >= 0 and finite (0: off)");
  require(o.start_from_motion >= 0 && std::isfinite(o.start_from_motion),
          "start_from_motion must be >= 0 and finite (m/s or rad/s; 0: off)");
  require(o.momentum_exit >= 0 && std::isfinite(o.momentum_exit),
          "momentum_exit must be >= 0 and finite (m/s or rad/s; 0: off)");
  require(o.linear_tolerance >= 0 && o.linear_tolerance < 1,
          "linear_tolerance must be in [0, 1) (a fraction of the right-hand side; 0: every iteration)");
  require(o.thickness >= 0 && std::isfinite(o.thickness), "thickness must be >= 0 and finite");
  require(o.depenetration_speed >= 0 && std::isfinite(o.depenetration_speed),
          "depenetration_speed must be >= 0 and finite (m/s; 0: no bound)");
  require(o.equality_recovery_speed >= 0 && std::isfinite(o.equality_recovery_speed),
          "equality_recovery_speed must be >= 0 and finite (m/s or rad/s; 0: no bound)");
  require(o.limit_recovery_speed >= 0 && std::isfinite(o.limit_recovery_speed),
          "limit_recovery_speed must be >= 0 and finite (rad/s or m/s; 0: no bound)");
  require(o.refresh_depth >= 0 && std::isfinite(o.refresh_depth), "refresh_depth must be >= 0 and finite (0: off)");
  require(o.dense_max_rows >= 0, "dense_max_rows must be >= 0");
  require(o.max_speed >= 0, "max_speed must be >= 0 (0: no bound)");
  require(o.line_search >= kAuto && o.line_search <= 1, "line_search must be None (auto), False or True");
  o.smooth_search = o.line_search != 0;  // smooth steps search unless it is False
  if (o.line_search == kAuto) {  // on with an activated Neo-Hookean element (options.hpp)
    o.line_search = 0;
    for (int t = 0; t < m.ntet; ++t)
      if (m.tet_model[t] == 1 && m.tet_group[t] >= 0) o.line_search = 1;
  }
  require(o.collision.margin >= 0 && std::isfinite(o.collision.margin), "margin must be >= 0 and finite");
  return o;
}

}  // namespace ncpgym
