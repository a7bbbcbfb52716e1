// ncpgym.Simulator: one world stepped by the non-smooth Newton solver, for tests,
// debugging and single-world use. Batches of worlds come with ncpgym's vector envs.
#include <algorithm>
#include <stdexcept>

#include "bindings.hpp"
#include "ncpgym/batch/sensors.hpp"
#include "ncpgym/model/mocap.hpp"
#include "ncpgym/collision/detect.hpp"
#include "ncpgym/dynamics/kinematics.hpp"
#include "ncpgym/solver/stepper.hpp"

using namespace ncpgym;

namespace {

template <class E>
E parse(const std::string& s, std::initializer_list<std::pair<const char*, E>> table, const char* what) {
  std::string all;
  for (const auto& [name, value] : table) {
    if (s == name) return value;
    all += std::string(all.empty() ? "" : ", ") + name;
  }
  throw std::invalid_argument(std::string("unknown ") + what + " '" + s + "' (expected one of: " + all + ")");
}

// The stepper runs on a private copy of the model that carries the simulator's mocap poses
// and equality switches (as each Batch thread's copy carries its world's parameters).
struct Simulator {
  Simulator(std::shared_ptr<Model> model, const SolverOptions& opt)
      : model_(model), work_(std::make_shared<Model>(*model)), stepper(work_, opt), state(*model) {
    mocap_body = mocap_bodies(*model);
    mocap_pos.resize(3 * model->nmocap);
    mocap_quat.resize(4 * model->nmocap);
    for (int k = 0; k < model->nmocap; ++k)
      mocap_pose(*model, mocap_body[k], mocap_pos.data() + 3 * k, mocap_quat.data() + 4 * k);
    eq_active = model->eq_active;
  }
  // Applies mocap poses and equality switches to the working model (before each step).
  void apply() {
    for (int k = 0; k < model_->nmocap; ++k) {
      if (!valid_mocap_pose(mocap_pos.data() + 3 * k, mocap_quat.data() + 4 * k))
        throw std::invalid_argument("mocap body " + std::to_string(k) + ": non-finite position or zero quaternion");
      set_mocap_pose(*work_, mocap_body[k], mocap_pos.data() + 3 * k, mocap_quat.data() + 4 * k);
    }
    work_->eq_active = eq_active;
  }
  std::shared_ptr<Model> model_, work_;
  Stepper stepper;
  State state;
  std::vector<int> mocap_body;
  VecX mocap_pos, mocap_quat;
  std::vector<unsigned char> eq_active;
};

}  // namespace

// One entry per option: its Python name, a description, and how to read and write it.
// The docstring, the constructor, the attributes and as_dict() all come from this table,
// and every default from a default-constructed SolverOptions (options.hpp): the defaults
// live in C++ only.
struct OptionField {
  const char* name;
  const char* doc;
  py::object (*get)(const SolverOptions&);
  void (*set)(SolverOptions&, py::handle);
};

template <class E>
py::object enum_name(E v, std::initializer_list<std::pair<const char*, E>> table) {
  for (const auto& [name, value] : table)
    if (value == v) return py::str(name);
  return py::none();
}

const std::initializer_list<std::pair<const char*, NcpFunction>> kNcp = {
    {"fischer_burmeister", NcpFunction::FischerBurmeister}, {"minimum_map", NcpFunction::MinimumMap}};
const std::initializer_list<std::pair<const char*, RScaling>> kRscale = {
    {"mixed", RScaling::Mixed},         {"effective_mass", RScaling::EffectiveMass},
    {"time_step", RScaling::TimeStep}, {"identity", RScaling::Identity}};
const std::initializer_list<std::pair<const char*, LinearSolverType>> kLinear = {
    {"pcr", LinearSolverType::PCR},       {"pcg", LinearSolverType::PCG},   {"jacobi", LinearSolverType::Jacobi},
    {"gauss_seidel", LinearSolverType::GaussSeidel}, {"ldlt", LinearSolverType::LDLT},
    {"sparse_ldlt", LinearSolverType::SparseLDLT}, {"kkt", LinearSolverType::KKT}};
const std::initializer_list<std::pair<const char*, bool>> kSoft = {{"primal", true}, {"dual", false}};

#define NUM_FIELD(field, type, doc)                                                  \
  OptionField {                                                                      \
    #field, doc, [](const SolverOptions& o) -> py::object { return py::cast(o.field); }, \
        [](SolverOptions& o, py::handle v) { o.field = v.cast<type>(); }             \
  }
#define ENUM_FIELD(pyname, field, table, what, doc)                                                  \
  OptionField {                                                                                      \
    pyname, doc, [](const SolverOptions& o) -> py::object { return enum_name(o.field, table); },     \
        [](SolverOptions& o, py::handle v) { o.field = parse(v.cast<std::string>(), table, what); } \
  }

const std::vector<OptionField>& option_fields() {
  static const std::vector<OptionField> fields = {
      NUM_FIELD(newton_iterations, int, "Newton iterations (0: the model's count if it sets one, else the default)"),
      NUM_FIELD(linear_iterations, int, "iterations of the iterative linear solvers (0: the model's or the default)"),
      NUM_FIELD(tolerance, double, "early exit when the NCP and momentum residuals fall below it (0: off)"),
      NUM_FIELD(linear_tolerance, double,
                "iterative linear solvers stop at this relative residual of eq. 59 (inexact Newton; 0: every "
                "iteration)"),
      NUM_FIELD(step, double, "damped Newton step t"),
      NUM_FIELD(regularization, double, "epsilon on the system diagonal"),
      NUM_FIELD(proximal, double,
                "Marquardt damping: each dual row's diagonal grows by this times its J H^-1 J^T entry (0: off)"),
      ENUM_FIELD("ncp", ncp, kNcp, "ncp function", "NCP function of the normal and limit rows"),
      ENUM_FIELD("rscale", rscale, kRscale, "rscale",
                 "complementarity preconditioner r: mixed (the default: eq. 66, except the time step on rows "
                 "that move a particle), effective_mass (eq. 66 everywhere), time_step or identity"),
      ENUM_FIELD("linear", linear, kLinear, "linear solver", "linear solver of eq. 59"),
      NUM_FIELD(warm_start, bool, "start lambda from the previous step's contact impulses (a Batch keeps one memory per world)"),
      OptionField{"margin", "collision margin",
                  [](const SolverOptions& o) -> py::object { return py::cast(o.collision.margin); },
                  [](SolverOptions& o, py::handle v) { o.collision.margin = v.cast<double>(); }},
      NUM_FIELD(thickness, double, "contact thickness d of eq. 9"),
      NUM_FIELD(depenetration_speed, double,
                "the fastest (m/s) a contact that starts a step deeper than h times it is pushed apart (0: no bound)"),
      NUM_FIELD(equality_recovery_speed, double,
                "the fastest (m/s, rad/s) a rigid equality violated at a step's start by more than h times it "
                "is corrected (0: no bound)"),
      NUM_FIELD(limit_recovery_speed, double,
                "the fastest (rad/s, m/s) a joint or tendon limit violated at a step's start by more than h times "
                "it is corrected (0: no bound)"),
      NUM_FIELD(timestep, double, "time step (0: the model's)"),
      NUM_FIELD(dense_max_rows, int, "larger systems are solved matrix-free, smaller ones in the form of fewer flops; Gauss-Seidel and LDLT always assemble"),
      NUM_FIELD(geometric_stiffness, bool, "diagonal shift on particle coordinates (eqs. 70-74, secant at fixed lambda)"),
      NUM_FIELD(block_preconditioner, bool, "PCR/PCG: invert each contact's 3 x 3 block instead of Jacobi"),
      NUM_FIELD(implicit_springs, bool,
                "joint springs and servo stiffness folded exactly into H instead of compliant Newton rows"),
      ENUM_FIELD("soft_solver", soft_primal, kSoft, "soft solver",
                 "worlds with tetrahedra: 'primal' eliminates the element rows and factorises the KKT system "
                 "(sparse LDL^T); 'dual' keeps them as rows of eq. 59 for `linear`, as the seed does"),
      NUM_FIELD(soft_triangle_contacts, bool,
                "every rigid geom also against soft boundary triangles (round shapes by closest points, box, "
                "cylinder and hull features clipped to the triangle)"),
      NUM_FIELD(soft_soft_contacts, bool, "vertices of one soft body against the boundary triangles of another"),
      NUM_FIELD(deformable_contacts, bool,
                "rods and shells against shells (a folded shell against itself) and tetrahedral bodies"),
      NUM_FIELD(refresh_depth, double,
                "collide again at the step's end: a new contact deeper than this (m) joins the step, which is "
                "solved again (0: off)"),
      NUM_FIELD(pressure_stiffness, bool,
                "pressure chambers' load stiffness -h^2 p d2V/dx2 in the Newton matrix (off: indefinite, diverges "
                "without the walls' stress stiffness)"),
      NUM_FIELD(stress_stiffness, bool,
                "the tetrahedra's stress stiffness -h^2 sum lambda d2c/dx2 in the primal Newton matrix"),
      NUM_FIELD(element_multipliers_from_x, bool,
                "primal soft path: the eliminated element rows take lambda = -c(x) / E at every Newton iterate "
                "(off: their linearised update from the zero start, as the seed)"),
      NUM_FIELD(project_impulses, bool,
                "clip normal-contact and joint-limit impulses at 0 after each damped Newton update (not in the seed)"),
      NUM_FIELD(bounded_friction_w, bool,
                "outside the friction cone, W of App. A.2 takes eq. 105's value (eq. 104's denominator vanishes)"),
      NUM_FIELD(cone_return, bool,
                "friction outside the cone is driven back to the cone's boundary (Alart-Curnier's point) instead of to zero, and a "
                "contact whose normal row separates at an iterate has no friction there (not in the seed)"),
      NUM_FIELD(smooth_full_step, bool,
                "full Newton steps (t = 1) when a step's rows are only equalities and springs of the articulated trees "
                "(no contact, limit, particle or element rows): damping only slows Newton on smooth systems; "
                "off by default (quaternion joints make the Newton matrix inexact; see options.hpp); such steps "
                "backtrack from t = 1 unless line_search is False"),
      NUM_FIELD(start_from_motion, double,
                "a warm-started step starts each articulated tree faster than this (m/s or rad/s) from its "
                "velocity instead of u = 0 (eq. 67), with the remembered impulses matched within each geom's "
                "reach over the step: no (1 - t)^k drag on sliding and rolling bodies; 0: off (see options.hpp)"),
      NUM_FIELD(momentum_exit, double,
                "at an iterate whose NCP residual is below tolerance and whose momentum residual exceeds this "
                "(m/s or rad/s), try the velocity that balances momentum at the iterate's impulses (eq. 57 at fixed "
                "lambda) and end the step there if both residuals are then below tolerance; otherwise go on as "
                "without it. Dual path without particles; 0: off (see options.hpp)"),
      OptionField{"line_search",
                  "each Newton update of a step with soft elements tries t = 1 and halves it (<= 4 times) until the "
                  "residual merit falls (Armijo), replacing the fixed damping `step`; None: on in worlds with "
                  "activated Neo-Hookean elements (in an activation group). Steps whose rows are only equalities "
                  "and springs of the trees search unless it is False",
                  [](const SolverOptions& o) -> py::object {
                    return o.line_search == kAuto ? py::none() : py::object(py::bool_(o.line_search == 1));
                  },
                  [](SolverOptions& o, py::handle v) {
                    o.line_search = v.is_none() ? kAuto : (v.cast<bool>() ? 1 : 0);
                  }},
      NUM_FIELD(max_speed, double,
                "a step whose velocities exceed it (m/s or rad/s) counts as diverged like a non-finite one (0: off)"),
  };
  return fields;
}

std::string options_doc() {
  std::string s =
      "Solver options of the non-smooth Newton NCP step (nonsmooth-newton-ncp.txt, Alg. 1).\n\n"
      "All keyword, name=default:\n";
  const SolverOptions d;
  for (const auto& f : option_fields())
    s += "  " + std::string(f.name) + "=" + py::repr(f.get(d)).cast<std::string>() + ": " + f.doc + "\n";
  return s;
}

py::dict options_dict(const SolverOptions& o) {
  py::dict d;
  for (const auto& f : option_fields()) d[f.name] = f.get(o);
  return d;
}

SolverOptions options_from_kwargs(const py::kwargs& kw) {
  SolverOptions o;
  for (const auto& [key, value] : kw) {
    const std::string k = key.cast<std::string>();
    const auto& fs = option_fields();
    auto it = std::find_if(fs.begin(), fs.end(), [&](const OptionField& f) { return k == f.name; });
    if (it == fs.end()) {
      std::string all;
      for (const auto& f : fs) all += std::string(all.empty() ? "" : ", ") + f.name;
      throw py::type_error("unknown solver option '" + k + "' (expected one of: " + all + ")");
    }
    try {
      it->set(o, value);
    } catch (const py::cast_error&) {
      throw py::type_error("solver option '" + k + "': cannot use " + py::repr(value).cast<std::string>());
    }
  }
  return o;
}

void bind_sim(py::module_& mod) {
  static const std::string doc = options_doc();
  py::class_<SolverOptions>(mod, "SolverOptions", doc.c_str())
      .def(py::init([](const py::kwargs& kw) { return options_from_kwargs(kw); }))
      .def("as_dict", &options_dict, "The options as a dict {name: value}.")
      .def("__getattr__",
           [](const SolverOptions& o, const std::string& name) -> py::object {
             for (const auto& f : option_fields())
               if (name == f.name) return f.get(o);
             throw py::attribute_error("SolverOptions has no option '" + name + "'");
           })
      .def("__repr__", [](const SolverOptions& o) {
        return "SolverOptions(" + py::str(options_dict(o)).cast<std::string>() + ")";
      });
  mod.def("resolve_options", [](const Model& m, const SolverOptions& o) { return resolve(m, o); }, py::arg("model"),
          py::arg("options"),
          "The options a Simulator or Batch of this model runs with: unset entries (timestep, iteration "
          "counts) from the model or the defaults, every value validated.");

  static const std::string sim_doc = "One world stepped by the non-smooth Newton NCP solver.\n\nSimulator(model, **options): " + doc;
  py::class_<Simulator>(mod, "Simulator", sim_doc.c_str())
      .def(py::init([](std::shared_ptr<Model> model, const py::kwargs& kw) {
             return new Simulator(model, options_from_kwargs(kw));
           }),
           py::arg("model"))
      .def_property_readonly("model", [](const Simulator& s) { return s.model_; }, "the Model this simulator steps")
      .def(
          "geom_distance",
          [](const Simulator& s, int g1, int g2, double distmax) {
            const Model& m = *s.model_;
            for (int g : {g1, g2})
              if (g < 0 || g >= m.ngeom) throw std::out_of_range("unknown geom id " + std::to_string(g));
            Data d(m);
            kinematics(m, d, s.state.q.data());
            Vec3 p1, p2;
            const double dist = geom_distance(m, d, g1, g2, distmax, p1, p2);
            py::array_t<double> fromto(6);
            auto r = fromto.mutable_unchecked<1>();
            for (int k = 0; k < 3; ++k) {
              r(k) = p1[k];
              r(3 + k) = p2[k];
            }
            return py::make_tuple(dist, fromto);
          },
          py::arg("geom1"), py::arg("geom2"), py::arg("distmax") = 1.0,
          "Signed distance between two geoms' surfaces at the current q (negative: penetration "
          "depth) and fromto = [point on geom1, point on geom2] (world), as mujoco.mj_geomDistance; "
          "distmax (and zeros) when they are farther apart.")
      .def_property_readonly("timestep", [](const Simulator& s) { return s.stepper.options().timestep; }, "the time step h it runs with (s)")
      .def_property_readonly("options", [](const Simulator& s) { return options_dict(s.stepper.options()); },
                             "The options this simulator runs with (resolved: see resolve_options), as a dict.")
      .def(
          "step",
          [](Simulator& s, py::object ctrl, int nsteps) {
            if (!ctrl.is_none()) {
              auto c = ctrl.cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
              if (c.ndim() != 1 || c.shape(0) != s.model_->nu)
                throw std::invalid_argument("ctrl: expected shape (" + std::to_string(s.model_->nu) + ",)");
              for (py::ssize_t i = 0; i < c.shape(0); ++i)
                if (!std::isfinite(c.at(i))) throw std::invalid_argument("ctrl: non-finite value");
              for (py::ssize_t i = 0; i < c.shape(0); ++i) s.state.ctrl[i] = c.at(i);
            }
            if (nsteps < 1) throw std::invalid_argument("nsteps must be >= 1");
            s.apply();
            py::gil_scoped_release release;
            SignalCheck check;
            for (int k = 0; k < nsteps; ++k) {
              s.stepper.step(s.state);
              check();  // Ctrl-C between whole steps: the state stays a valid one
            }
          },
          py::arg("ctrl") = py::none(), py::arg("nsteps") = 1,
          "Advance nsteps time steps; ctrl (nu,) is kept for later steps.")
      .def_property("q", [](py::object self) { return view(self.cast<Simulator&>().state.q, self); },
                    [](Simulator& s, const VecX& q) { assign_checked(s.state.q, q, "q"); }, "(nq,) positions, a writable view")
      .def_property("u", [](py::object self) { return view(self.cast<Simulator&>().state.u, self); },
                    [](Simulator& s, const VecX& u) { assign_checked(s.state.u, u, "u"); }, "(nv,) velocities, a writable view")
      .def_property_readonly("ctrl", [](py::object self) { return view(self.cast<Simulator&>().state.ctrl, self); },
                             "(nu,) controls held by step(), a writable view")
      .def_property(
          "mocap_pos",
          [](py::object self) {
            auto& s = self.cast<Simulator&>();
            return py::array_t<double>({s.model_->nmocap, 3}, s.mocap_pos.data(), self);
          },
          [](Simulator& s, py::array a) {
            assign_array<double>(a, s.mocap_pos.data(), {s.model_->nmocap, 3}, "mocap_pos");
          },
          "Mocap body positions (nmocap, 3), writable view, applied at the next step.")
      .def_property(
          "mocap_quat",
          [](py::object self) {
            auto& s = self.cast<Simulator&>();
            return py::array_t<double>({s.model_->nmocap, 4}, s.mocap_quat.data(), self);
          },
          [](Simulator& s, py::array a) {
            assign_array<double>(a, s.mocap_quat.data(), {s.model_->nmocap, 4}, "mocap_quat");
          },
          "Mocap body orientations (nmocap, 4) as (w, x, y, z), normalised when applied.")
      .def_property(
          "eq_active",
          [](py::object self) {
            auto& s = self.cast<Simulator&>();
            return py::array_t<uint8_t>({s.model_->neq}, s.eq_active.data(), self);
          },
          [](Simulator& s, py::array a) {
            assign_array<uint8_t>(a, s.eq_active.data(), {s.model_->neq}, "eq_active");
          },
          "Equality switches (neq,) uint8: 1 on, 0 off; applied at the next step.")
      .def_property_readonly("actuator_act", [](py::object self) { return view(self.cast<Simulator&>().state.actuator_act, self); },
                             "The actuators' activations (na; MuJoCo's act), advanced by each step; writable view.")
      .def_property_readonly("activation", [](py::object self) { return view(self.cast<Simulator&>().state.act, self); },
                             "Each activation group's value (nactgroup): active strain of tetrahedra, natural curvature (1/m) of rod nodes, natural angle (rad) of shell hinges; writable view.")
      .def_property_readonly("x", [](py::object self) {
        auto& s = self.cast<Simulator&>();
        return py::array_t<double>({s.model_->nparticle, 3}, s.state.x.data(), self);
      }, "Particle positions (nparticle, 3), writable view.")
      .def_property_readonly("v", [](py::object self) {
        auto& s = self.cast<Simulator&>();
        return py::array_t<double>({s.model_->nparticle, 3}, s.state.v.data(), self);
      }, "Particle velocities (nparticle, 3), writable view.")
      .def_property_readonly("particle_force", [](py::object self) {
        auto& s = self.cast<Simulator&>();
        return py::array_t<double>({s.model_->nparticle, 3}, s.state.f.data(), self);
      }, "External forces on the particles (nparticle, 3) in N, held over each step until changed; writable view.")
      .def_property(
          "warm_start_state",
          [](Simulator& s) {
            const WarmStart& w = s.stepper.warm_start();
            py::array_t<double> out({static_cast<py::ssize_t>(w.entries().size()), py::ssize_t(kWarmColumns)});
            w.write_rows(0, out.mutable_data());
            return out;
          },
          [](Simulator& s, py::array_t<double, py::array::c_style | py::array::forcecast> a) {
            check_warm_start_rows(a, kWarmColumns);
            s.stepper.warm_start().read_rows(a.data(), static_cast<int>(a.shape(0)));
          },
          "[K, 12] the contact impulses the next step starts from (option warm_start): one row per contact "
          "of the last step, [0, geom1, geom2, particle1, soft point 1, soft point 2, pos (3), "
          "multipliers (normal, t1, t2)]; a copy, assign to restore (state.simulator_state saves it)")
      .def_property_readonly(
          "sensordata",
          [](const Simulator& s) {
            const Model& m = *s.work_;
            Data d(m);
            kinematics(m, d, s.state.q.data());
            velocities(m, d, s.state.u.data());
            py::array_t<double> out(m.nsensordata);
            compute_sensors(m, d, s.state, s.stepper.step_acceleration().data(), &s.stepper, out.mutable_data());
            return out;
          },
          "[nsensordata] sensor readings in MuJoCo's layout at the current state; touch, accelerometer, "
          "force and torque sensors read the last step's contact forces and mean acceleration "
          "(ncpgym/batch/sensors.hpp)")
      .def_property_readonly("contacts", [](const Simulator& s) {
        const auto& cs = s.stepper.contacts();
        const py::ssize_t n = static_cast<py::ssize_t>(cs.size());
        py::array_t<double> pos({n, py::ssize_t(3)}), normal({n, py::ssize_t(3)}), force({n, py::ssize_t(3)});
        py::array_t<double> torque({n, py::ssize_t(3)}), fric5({n, py::ssize_t(3)});
        py::array_t<double> dist(n), friction(n), margin(n);
        py::array_t<int> g1(n), g2(n), part(n), condim(n);
        py::array_t<bool> refreshed(n);
        const auto f = s.stepper.contact_forces();
        const py::ssize_t detected = s.stepper.contacts_detected();
        for (py::ssize_t i = 0; i < n; ++i) {
          for (int k = 0; k < 3; ++k) {
            pos.mutable_at(i, k) = cs[i].pos[k];
            normal.mutable_at(i, k) = cs[i].normal[k];
            force.mutable_at(i, k) = f[3 * i + k];
          }
          const Vec3 t = s.stepper.contact_torque(static_cast<int>(i));
          for (int k = 0; k < 3; ++k) torque.mutable_at(i, k) = t[k];
          fric5.mutable_at(i, 0) = cs[i].friction;
          fric5.mutable_at(i, 1) = cs[i].spin;
          fric5.mutable_at(i, 2) = cs[i].roll;
          condim.mutable_at(i) = cs[i].condim;
          margin.mutable_at(i) = cs[i].margin;
          dist.mutable_at(i) = cs[i].dist;
          friction.mutable_at(i) = cs[i].friction;
          g1.mutable_at(i) = cs[i].geom1;
          part.mutable_at(i) = cs[i].particle1;
          g2.mutable_at(i) = cs[i].geom2;
          refreshed.mutable_at(i) = i >= detected;
        }
        py::dict d;
        d["pos"] = pos;
        d["normal"] = normal;
        d["dist"] = dist;
        d["force"] = force;
        d["friction"] = friction;
        d["condim"] = condim;
        d["friction_coefficients"] = fric5;  // sliding, torsional, rolling
        d["margin"] = margin;
        d["torque"] = torque;  // torsional and rolling friction, on geom1's body (N m, world)
        d["geom1"] = g1;
        d["geom2"] = g2;
        d["particle"] = part;
        d["refreshed"] = refreshed;
        return d;
      }, "Contacts of the last step: pos, normal (from geom2 to geom1), dist at detection, "
         "force (normal, tangent1, tangent2; impulse = timestep * force), geom ids, particle id "
         "(side 1 is a particle where >= 0, then geom1 = -1), refreshed (found at the step's end by the "
         "contact refresh, option refresh_depth: their dist is their row's value at the step's start, "
         "not a depth of that state; dist[~refreshed] is the penetration the step started from).")
      .def("particle_response", [](Simulator& s, const MatX& F) { return s.stepper.particle_response(F); },
           py::arg("forces"),
           "How the last step's particle positions respond to forces held on the particles: for each column f "
           "of `forces` (3 nparticle x k, flat xyz per particle), the displacement (3 nparticle) of the step's "
           "linearised system (mass, elements, attachments, contacts; inverse-qp-soft-robots.txt eq. 3's "
           "K^-1 J_a^T for the time-stepped system). Needs a step solved by the primal soft path.")
      .def_property_readonly("solver_stats", [](const Simulator& s) {
        const auto& st = s.stepper.stats();
        py::dict d;
        d["newton_iterations"] = st.newton_iterations;
        d["residual"] = st.residual;
        d["linear_iterations"] = st.linear_iterations;
        d["linear_residual"] = st.linear_residual;
        d["step_size"] = st.step_size;
        d["momentum_residual"] = st.momentum_residual;
        d["assembled"] = s.stepper.last_step_assembled();
        d["refreshed"] = st.refreshed;
        d["backtracks"] = st.backtracks;
        d["momentum_exit"] = st.momentum_exit;
        d["momentum_exit_rejected"] = st.momentum_exit_rejected;
        d["momentum_exit_kept"] = st.momentum_exit_kept;
        d["projected"] = st.projected;
        return d;
      }, "The last step's solver: newton_iterations, residual (max |NCP or row residual| per "
         "iterate), linear_iterations and linear_residual per linear solve, step_size (max |t du| "
         "of each Newton update, velocity units), momentum_residual (max |H^-1 g| of eq. 57 per iterate, "
         "velocity units), assembled (dense or matrix-free/sparse path), refreshed (contacts found at the "
         "step's end deeper than refresh_depth and added, the step then solved again; the lists above "
         "then hold both solves), backtracks (line_search: halvings of the step length; with line_search the "
         "residual lists also hold the last update's iterate), projected (stress_stiffness: Newton matrices "
         "factorised again with projected element blocks), momentum_exit (1 when the step ended at the velocity "
         "that balances momentum at its impulses, option momentum_exit), momentum_exit_kept (tries of it whose "
         "NCP residual alone was below tolerance, Newton then going on from them), momentum_exit_rejected "
         "(tries whose NCP residual was not, the iterate then restored).");
}
