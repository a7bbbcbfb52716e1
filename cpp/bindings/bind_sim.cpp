// ncpgym.Simulator: one world stepped by the non-smooth Newton solver, for tests,
// debugging and single-world use. Batches of worlds come with ncpgym's vector envs.
#include <stdexcept>

#include "bindings.hpp"
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

struct Simulator {
  Simulator(std::shared_ptr<Model> model, const SolverOptions& opt)
      : model_(model), stepper(model, opt), state(*model) {}
  std::shared_ptr<Model> model_;
  Stepper stepper;
  State state;
};

}  // namespace

static const char* kSolverOptionsDoc = R"doc(
Solver options of the non-smooth Newton NCP step (nonsmooth-newton-ncp.txt, Alg. 1).

All keyword: newton_iterations=8, linear_iterations=50, tolerance=0 (early exit on the NCP
residual), step=0.75 (damped Newton step), regularization=1e-6,
ncp='fischer_burmeister'|'minimum_map', rscale='effective_mass'|'time_step'|'identity',
linear='pcr'|'pcg'|'jacobi'|'gauss_seidel'|'ldlt'|'sparse_ldlt', warm_start=False, margin=0.01
(collision margin), thickness=0 (contact thickness), timestep=0 (0: the model's),
dense_max_rows=64 (larger systems are solved matrix-free; GS and LDLT always assemble),
geometric_stiffness=True (diagonal shift on particle coordinates, eqs. 71-74),
block_preconditioner=False (PCR/PCG: invert each contact's 3 x 3 block instead of Jacobi),
implicit_springs=True (joint springs and servo stiffness folded exactly into H instead of
compliant rows of the Newton system),
soft_solver='primal'|'dual' (worlds with tetrahedra: 'primal' eliminates the element rows into
the particle block and factorises the remaining KKT system exactly with a sparse LDL^T;
'dual' keeps them as rows of eq. 59 for the `linear` backend, as the seed does),
soft_triangle_contacts=False (rigid spheres, capsules and box corners also against soft
boundary triangles: for rigid features smaller than the mesh spacing), soft_soft_contacts=True
(vertices of one soft body against the boundary triangles of another),
project_impulses=True (clip normal-contact and joint-limit impulses at 0 after each damped
Newton update), bounded_friction_w=True (outside the friction cone, W of Appendix A.2 takes
the minimum-map value of eq. 105: eq. 104's denominator vanishes there). Both depart from
the seed; False gives the seed's iteration. max_speed=1e4 (a step whose velocities exceed it,
m/s or rad/s, counts as diverged like a non-finite one: state unchanged, error or status 1;
0: no bound).
)doc";

SolverOptions options_from_kwargs(const py::kwargs& kw, const Model& model) {
  // the model's own iteration counts (Builder.set_solver_iterations) unless given here
  py::dict d(kw);
  if (model.newton_iterations > 0 && !d.contains("newton_iterations")) d["newton_iterations"] = model.newton_iterations;
  if (model.linear_iterations > 0 && !d.contains("linear_iterations")) d["linear_iterations"] = model.linear_iterations;
  return py::module_::import("ncpgym._core").attr("SolverOptions")(**d).cast<SolverOptions>();
}

void bind_sim(py::module_& mod) {
  py::class_<SolverOptions>(mod, "SolverOptions", kSolverOptionsDoc)
      .def(py::init([](int newton_iterations, int linear_iterations, double tolerance, double step,
                       double regularization, const std::string& ncp, const std::string& rscale,
                       const std::string& linear, bool warm_start, double margin, double thickness,
                       double timestep, int dense_max_rows, bool geometric_stiffness,
                       bool block_preconditioner, bool implicit_springs, const std::string& soft_solver, bool soft_triangle_contacts, bool soft_soft_contacts,
                       bool project_impulses, bool bounded_friction_w, double max_speed) {
             SolverOptions o;
             o.newton_iterations = newton_iterations;
             o.linear_iterations = linear_iterations;
             o.tolerance = tolerance;
             o.step = step;
             o.regularization = regularization;
             o.ncp = parse<NcpFunction>(ncp, {{"fischer_burmeister", NcpFunction::FischerBurmeister},
                                              {"minimum_map", NcpFunction::MinimumMap}}, "ncp function");
             o.rscale = parse<RScaling>(rscale, {{"effective_mass", RScaling::EffectiveMass},
                                                 {"time_step", RScaling::TimeStep},
                                                 {"identity", RScaling::Identity}}, "rscale");
             o.linear = parse<LinearSolverType>(linear, {{"pcr", LinearSolverType::PCR},
                                                         {"pcg", LinearSolverType::PCG},
                                                         {"jacobi", LinearSolverType::Jacobi},
                                                         {"gauss_seidel", LinearSolverType::GaussSeidel},
                                                         {"ldlt", LinearSolverType::LDLT},
                                                         {"sparse_ldlt", LinearSolverType::SparseLDLT}}, "linear solver");
             o.warm_start = warm_start;
             o.collision.margin = margin;
             o.thickness = thickness;
             o.timestep = timestep;
             o.dense_max_rows = dense_max_rows;
             o.geometric_stiffness = geometric_stiffness;
             o.block_preconditioner = block_preconditioner;
             o.implicit_springs = implicit_springs;
             o.soft_primal = parse<bool>(soft_solver, {{"primal", true}, {"dual", false}}, "soft solver");
             o.soft_triangle_contacts = soft_triangle_contacts;
             o.soft_soft_contacts = soft_soft_contacts;
             o.project_impulses = project_impulses;
             o.bounded_friction_w = bounded_friction_w;
             o.max_speed = max_speed;
             if (!(max_speed >= 0)) throw std::invalid_argument("max_speed must be >= 0 (0: no bound)");
             if (!(margin >= 0)) throw std::invalid_argument("margin must be >= 0");
             return o;
           }),
           py::kw_only(), py::arg("newton_iterations") = 8,
           py::arg("linear_iterations") = 50, py::arg("tolerance") = 0.0, py::arg("step") = 0.75,
           py::arg("regularization") = 1e-6, py::arg("ncp") = "fischer_burmeister",
           py::arg("rscale") = "effective_mass", py::arg("linear") = "pcr",
           py::arg("warm_start") = false, py::arg("margin") = 0.01, py::arg("thickness") = 0.0,
           py::arg("timestep") = 0.0, py::arg("dense_max_rows") = 64,
           py::arg("geometric_stiffness") = true, py::arg("block_preconditioner") = false,
           py::arg("implicit_springs") = true, py::arg("soft_solver") = "primal", py::arg("soft_triangle_contacts") = false,
           py::arg("soft_soft_contacts") = true, py::arg("project_impulses") = true,
           py::arg("bounded_friction_w") = true, py::arg("max_speed") = 1e4)
      .def_readonly("newton_iterations", &SolverOptions::newton_iterations)
      .def_readonly("linear_iterations", &SolverOptions::linear_iterations)
      .def_readonly("tolerance", &SolverOptions::tolerance)
      .def_readonly("timestep", &SolverOptions::timestep);

  static const std::string sim_doc = std::string("One world stepped by the non-smooth Newton NCP solver.\n") + kSolverOptionsDoc;
  py::class_<Simulator>(mod, "Simulator", sim_doc.c_str())
      .def(py::init([](std::shared_ptr<Model> model, const py::kwargs& kw) {
             return new Simulator(model, options_from_kwargs(kw, *model));
           }),
           py::arg("model"))
      .def_property_readonly("model", [](const Simulator& s) { return s.model_; })
      .def_property_readonly("timestep", [](const Simulator& s) {
        return s.stepper.options().timestep > 0 ? s.stepper.options().timestep : s.model_->timestep;
      })
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
            py::gil_scoped_release release;
            for (int k = 0; k < nsteps; ++k) s.stepper.step(s.state);
          },
          py::arg("ctrl") = py::none(), py::arg("nsteps") = 1,
          "Advance nsteps time steps; ctrl (nu,) is kept for later steps.")
      .def_property("q", [](py::object self) { return view(self.cast<Simulator&>().state.q, self); },
                    [](Simulator& s, const VecX& q) { assign_checked(s.state.q, q, "q"); })
      .def_property("u", [](py::object self) { return view(self.cast<Simulator&>().state.u, self); },
                    [](Simulator& s, const VecX& u) { assign_checked(s.state.u, u, "u"); })
      .def_property_readonly("ctrl", [](py::object self) { return view(self.cast<Simulator&>().state.ctrl, self); })
      .def_property_readonly("activation", [](py::object self) { return view(self.cast<Simulator&>().state.act, self); },
                             "Active strain per group of tetrahedra (nactgroup), writable view.")
      .def_property_readonly("x", [](py::object self) {
        auto& s = self.cast<Simulator&>();
        return py::array_t<double>({s.model_->nparticle, 3}, s.state.x.data(), self);
      }, "Particle positions (nparticle, 3), writable view.")
      .def_property_readonly("v", [](py::object self) {
        auto& s = self.cast<Simulator&>();
        return py::array_t<double>({s.model_->nparticle, 3}, s.state.v.data(), self);
      }, "Particle velocities (nparticle, 3), writable view.")
      .def_property_readonly("contacts", [](const Simulator& s) {
        const auto& cs = s.stepper.contacts();
        const py::ssize_t n = static_cast<py::ssize_t>(cs.size());
        py::array_t<double> pos({n, py::ssize_t(3)}), normal({n, py::ssize_t(3)}), force({n, py::ssize_t(3)});
        py::array_t<double> dist(n), friction(n);
        py::array_t<int> g1(n), g2(n), part(n);
        const auto f = s.stepper.contact_forces();
        for (py::ssize_t i = 0; i < n; ++i) {
          for (int k = 0; k < 3; ++k) {
            pos.mutable_at(i, k) = cs[i].pos[k];
            normal.mutable_at(i, k) = cs[i].normal[k];
            force.mutable_at(i, k) = f[3 * i + k];
          }
          dist.mutable_at(i) = cs[i].dist;
          friction.mutable_at(i) = cs[i].friction;
          g1.mutable_at(i) = cs[i].geom1;
          part.mutable_at(i) = cs[i].particle1;
          g2.mutable_at(i) = cs[i].geom2;
        }
        py::dict d;
        d["pos"] = pos;
        d["normal"] = normal;
        d["dist"] = dist;
        d["force"] = force;
        d["friction"] = friction;
        d["geom1"] = g1;
        d["geom2"] = g2;
        d["particle"] = part;
        return d;
      }, "Contacts of the last step: pos, normal (from geom2 to geom1), dist at detection, "
         "force (normal, tangent1, tangent2; impulse = timestep * force), geom ids, particle id "
         "(side 1 is a particle where >= 0, then geom1 = -1).")
      .def_property_readonly("solver_stats", [](const Simulator& s) {
        const auto& st = s.stepper.stats();
        py::dict d;
        d["newton_iterations"] = st.newton_iterations;
        d["residual"] = st.residual;
        d["linear_iterations"] = st.linear_iterations;
        d["linear_residual"] = st.linear_residual;
        d["step_size"] = st.step_size;
        d["assembled"] = s.stepper.last_step_assembled();
        return d;
      }, "The last step's solver: newton_iterations, residual (max |NCP or row residual| per "
         "iterate), linear_iterations and linear_residual per linear solve, step_size (max |t du| "
         "of each Newton update, velocity units), assembled (dense or matrix-free/sparse path).");
}
