// ncpgym._core.Batch: N worlds of one Model stepped in parallel. Every array property is a
// NumPy view of the batch's own buffer (no copy; the view keeps the batch alive), shaped
// [num_worlds, ...]. Validation of user input beyond shapes lives in ncpgym.vector.
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "bindings.hpp"
#include "ncpgym/batch/batch.hpp"
#include "ncpgym/batch/rng.hpp"
#include "ncpgym/batch/threads.hpp"

using namespace ncpgym;

namespace {

template <class T>
py::array_t<T> arr(py::object self, T* data, std::vector<py::ssize_t> shape) {
  return py::array_t<T>(shape, data, self);
}

using Mask = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;

// A boolean mask of length N as bytes (None: every world).
const uint8_t* mask_ptr(const Batch& b, const py::object& mask, Mask& keep) {
  if (mask.is_none()) return nullptr;
  keep = mask.cast<Mask>();
  if (keep.ndim() != 1 || keep.shape(0) != b.size())
    throw std::invalid_argument("mask: expected shape (" + std::to_string(b.size()) + ",)");
  return keep.data();
}

// A batch asked for threads in a process forked after a team ran steps on one thread
// (ncpgym/batch/threads.hpp): say so once, with the way out.
void warn_if_forked(const Batch& b) {
  static bool warned = false;
  if (warned || b.num_threads() < 2 || !forked_after_threads()) return;
  warned = true;
  if (PyErr_WarnEx(PyExc_RuntimeWarning,
                   "ncpgym: this process was forked after a batch ran on several threads; OpenMP's "
                   "threads do not survive fork, so batches here run on one thread (same results, "
                   "slower). Start worker processes with multiprocessing's 'spawn' or 'forkserver' "
                   "method to keep them.",
                   1) < 0)
    throw py::error_already_set();
}

}  // namespace

void bind_batch(py::module_& mod) {
  using Dbl = py::array_t<double, py::array::c_style | py::array::forcecast>;
  py::class_<Batch>(mod, "Batch", R"doc(
N independent worlds of one Model, stepped in parallel by OpenMP (GIL released).

Batch(model, num_worlds, *, num_threads=0, **solver_options) with the options of
SolverOptions (warm_start keeps one memory per world). Arrays are views of the batch's buffers,
shaped [num_worlds, ...]; write q, u, ctrl in place and call forward() after changing
states by hand. A world whose state becomes non-finite keeps its pre-step state and has
status 1 until reset.
)doc")
      .def(py::init([](std::shared_ptr<Model> model, int num_worlds, int num_threads, const py::kwargs& kw) {
             auto* b = new Batch(model, num_worlds, options_from_kwargs(kw), num_threads);
             warn_if_forked(*b);
             return b;
           }),
           py::arg("model"), py::arg("num_worlds"), py::kw_only(), py::arg("num_threads") = 0)
      .def_property_readonly("model", [](const Batch& b) { return std::const_pointer_cast<Model>(b.model_ptr()); }, "the Model every world steps")
      .def_property_readonly("num_worlds", &Batch::size, "number of worlds N")
      .def_property("num_threads", &Batch::num_threads, &Batch::set_num_threads, "OpenMP threads stepping the worlds (results do not depend on it)")
      .def_property_readonly("timestep", &Batch::timestep, "the time step h every world runs with (s)")
      .def_property_readonly("options", [](const Batch& b) { return options_dict(b.options()); },
                             "The options every world runs with (resolved: see resolve_options), as a dict.")
      .def(
          "step",
          [](Batch& b, py::object ctrl, int substeps, py::object observation_out) {
            const Model& m = b.model();
            double* out = nullptr;
            if (!observation_out.is_none()) {
              if (b.observation_dim() == 0) throw std::invalid_argument("observation_out: no observation is set (set_observation)");
              auto o = observation_out.cast<py::array>();
              const bool fits = o.dtype().is(py::dtype::of<double>()) && o.ndim() == 2 && o.shape(0) == b.size() &&
                                o.shape(1) == b.observation_dim() && (o.flags() & py::array::c_style) && o.writeable();
              if (!fits)
                throw std::invalid_argument("observation_out: expected a writable C-contiguous float64 array of shape (" +
                                            std::to_string(b.size()) + ", " + std::to_string(b.observation_dim()) + ")");
              out = static_cast<double*>(o.mutable_data());
            }
            if (!ctrl.is_none()) {
              auto c = ctrl.cast<Dbl>();
              if (c.ndim() != 2 || c.shape(0) != b.size() || c.shape(1) != m.nu)
                throw std::invalid_argument("ctrl: expected shape (" + std::to_string(b.size()) + ", " +
                                            std::to_string(m.nu) + ")");
              std::copy(c.data(), c.data() + c.size(), b.ctrl());
            }
            if (substeps < 1) throw std::invalid_argument("substeps must be >= 1");
            warn_if_forked(b);
            py::gil_scoped_release release;
            // long calls in chunks, checking for Ctrl-C between them (a world's trajectory
            // does not depend on how its steps are chunked)
            constexpr int kChunk = 16;
            SignalCheck check;
            for (int done = 0; done < substeps; done += kChunk) {
              const int k = std::min(kChunk, substeps - done);
              b.step(k, done + k == substeps ? out : nullptr);
              check();
            }
          },
          py::arg("ctrl") = py::none(), py::arg("substeps") = 1, py::arg("observation_out") = py::none(),
          "Advance every world by `substeps` steps with ctrl [N, nu] held (None: keep the current ctrl). "
          "observation_out: an [N, dim] float64 array that receives a copy of the fused observation "
          "(Batch.observation), written by the threads that step the worlds.")
      .def(
          "forward",
          [](Batch& b, py::object mask) {
            Mask keep;
            const uint8_t* p = mask_ptr(b, mask, keep);
            warn_if_forked(b);
            py::gil_scoped_release release;
            b.forward(p);
          },
          py::arg("mask") = py::none(), "Recompute derived quantities of the masked worlds from q, u.")
      .def(
          "reset",
          [](Batch& b, py::object mask, Dbl q, Dbl u) {
            const Model& m = b.model();
            Mask keep;
            const uint8_t* p = mask_ptr(b, mask, keep);
            py::ssize_t n = b.size();
            if (p) n = std::count_if(p, p + b.size(), [](uint8_t x) { return x != 0; });
            if (q.ndim() != 2 || q.shape(0) != n || q.shape(1) != m.nq)
              throw std::invalid_argument("q: expected shape (" + std::to_string(n) + ", " + std::to_string(m.nq) + ")");
            if (u.ndim() != 2 || u.shape(0) != n || u.shape(1) != m.nv)
              throw std::invalid_argument("u: expected shape (" + std::to_string(n) + ", " + std::to_string(m.nv) + ")");
            warn_if_forked(b);
            b.reset(p, q.data(), u.data());
          },
          py::arg("mask"), py::arg("q"), py::arg("u"),
          "Set q, u of the masked worlds (one row per masked world), zero their ctrl and actuator_act, reset particles.")
      .def(
          "seed",
          [](Batch& b, uint64_t seed, int64_t first_world) {
            if (first_world < 0) throw std::invalid_argument("first_world must be >= 0");
            for (int i = 0; i < b.size(); ++i)
              b.set_rng_key(i, world_key(seed, static_cast<uint64_t>(first_world + i)));
          },
          py::arg("seed"), py::arg("first_world") = 0,
          "Seed world i's random stream from (seed, first_world + i): independent of num_worlds; "
          "first_world numbers the worlds of a shard of a larger batch.")
      .def_property(
          "rng_state",
          [](const Batch& b) {
            py::array_t<uint64_t> out({static_cast<py::ssize_t>(b.size()), py::ssize_t(2)});
            for (int i = 0; i < b.size(); ++i) {
              out.mutable_at(i, 0) = b.rng_key(i);
              out.mutable_at(i, 1) = b.rng_counter(i);
            }
            return out;
          },
          [](Batch& b, py::array_t<uint64_t, py::array::c_style | py::array::forcecast> a) {
            if (a.ndim() != 2 || a.shape(0) != b.size() || a.shape(1) != 2)
              throw std::invalid_argument("rng_state: expected shape (" + std::to_string(b.size()) + ", 2)");
            for (int i = 0; i < b.size(); ++i) b.set_rng(i, a.at(i, 0), a.at(i, 1));
          },
          "[N, 2] uint64 (key, counter) of each world's random stream (a copy; assign to restore)")
      .def_property(
          "warm_start_state",
          [](Batch& b) {
            size_t n = 0;
            for (const WarmStart& w : b.warm_starts()) n += w.entries().size();
            py::array_t<double> out({static_cast<py::ssize_t>(n), py::ssize_t(kWarmColumns)});
            double* p = out.mutable_data();
            for (int i = 0; i < b.size(); ++i) {
              const WarmStart& w = b.warm_starts()[static_cast<size_t>(i)];
              w.write_rows(i, p);
              p += w.entries().size() * kWarmColumns;
            }
            return out;
          },
          [](Batch& b, py::array_t<double, py::array::c_style | py::array::forcecast> a) {
            check_warm_start_rows(a, kWarmColumns);
            const py::ssize_t n = a.shape(0);
            std::vector<std::vector<double>> rows(static_cast<size_t>(b.size()));
            for (py::ssize_t k = 0; k < n; ++k) {
              const double wld = a.at(k, 0);
              if (!(wld == std::floor(wld)) || wld < 0 || wld >= b.size())
                throw std::invalid_argument("warm_start_state: row " + std::to_string(k) + " names world " +
                                            std::to_string(wld) + " of " + std::to_string(b.size()));
              auto& r = rows[static_cast<size_t>(wld)];
              r.insert(r.end(), a.data(k, 0), a.data(k, 0) + kWarmColumns);
            }
            std::vector<WarmStart> read(static_cast<size_t>(b.size()));  // all worlds or none
            for (int i = 0; i < b.size(); ++i) {
              const auto& r = rows[static_cast<size_t>(i)];
              read[static_cast<size_t>(i)].read_rows(r.data(), static_cast<int>(r.size() / kWarmColumns));
            }
            for (int i = 0; i < b.size(); ++i) b.warm_starts()[static_cast<size_t>(i)].swap(read[static_cast<size_t>(i)]);
          },
          "[K, 12] the contact impulses each world starts its next step from (option warm_start): one row "
          "per contact of the world's last step, [world, geom1, geom2, particle1, soft point 1, soft point 2, "
          "pos (3), multipliers (normal, t1, t2)]; a copy, assign to restore (state.batch_state saves it)")
      .def(
          "seed_worlds",
          [](Batch& b, py::array_t<uint64_t, py::array::c_style | py::array::forcecast> seeds, int64_t first_world) {
            if (first_world < 0) throw std::invalid_argument("first_world must be >= 0");
            if (seeds.ndim() != 1 || seeds.size() != b.size())
              throw std::invalid_argument("seed_worlds: expected one seed per world (" + std::to_string(b.size()) +
                                          "), got " + std::to_string(seeds.size()));
            for (int i = 0; i < b.size(); ++i)
              b.set_rng_key(i, world_key(seeds.at(i), static_cast<uint64_t>(first_world + i)));
          },
          py::arg("seeds"), py::arg("first_world") = 0,
          "Seed world i's random stream from (seeds[i], first_world + i): seed(s) is seed_worlds([s] * N).")
      .def(
          "uniform",
          [](Batch& b, py::array_t<int, py::array::c_style | py::array::forcecast> worlds, int ncol, double lo,
             double hi) {
            py::array_t<double> out({worlds.size(), static_cast<py::ssize_t>(ncol)});
            b.uniform(worlds.data(), static_cast<int>(worlds.size()), ncol, lo, hi, out.mutable_data());
            return out;
          },
          py::arg("worlds"), py::arg("ncol"), py::arg("low") = 0.0, py::arg("high") = 1.0,
          "Uniform numbers [len(worlds), ncol], each row from its world's own stream.")
      .def(
          "project",
          [](Batch& b, py::array_t<int, py::array::c_style | py::array::forcecast> effectors,
             py::array_t<int, py::array::c_style | py::array::forcecast> groups,
             py::array_t<int, py::array::c_style | py::array::forcecast> cable_particles,
             py::array_t<double, py::array::c_style | py::array::forcecast> cable_anchors) {
            const int ne = static_cast<int>(effectors.size()), ng = static_cast<int>(groups.size());
            const int nc = static_cast<int>(cable_particles.size()), na = ng + nc;
            if (cable_anchors.size() != 3 * nc || (nc > 0 && (cable_anchors.ndim() != 2 || cable_anchors.shape(1) != 3)))
              throw std::invalid_argument("cable_anchors: expected (ncable, 3)");
            if (na == 0) throw std::invalid_argument("project: no actuators");
            py::array_t<double> xf({static_cast<py::ssize_t>(b.size()), static_cast<py::ssize_t>(ne), py::ssize_t(3)});
            py::array_t<double> wea({static_cast<py::ssize_t>(b.size()), static_cast<py::ssize_t>(3 * ne),
                                     static_cast<py::ssize_t>(na)});
            py::array_t<double> waa({static_cast<py::ssize_t>(b.size()), static_cast<py::ssize_t>(na),
                                     static_cast<py::ssize_t>(na)});
            warn_if_forked(b);
            {
              py::gil_scoped_release release;
              b.project(effectors.data(), ne, groups.data(), ng, cable_particles.data(), cable_anchors.data(), nc,
                        xf.mutable_data(), wea.mutable_data(), waa.mutable_data());
            }
            return py::make_tuple(xf, wea, waa);
          },
          py::arg("effectors"), py::arg("groups"), py::arg("cable_particles"), py::arg("cable_anchors"),
          "Step II of the inverse method for every world (OpenMP): from each world's state a free step (not "
          "stored) with its activation and particle forces; returns the effectors' free positions [N, ne, 3], "
          "W_ea [N, 3 ne, na] and W_aa [N, na, na] for the actuators: the pressure groups, then the cables "
          "(a unit force on each cable particle towards its anchor). NaN for a world whose free step fails.")
      .def(
          "normal",
          [](Batch& b, py::array_t<int, py::array::c_style | py::array::forcecast> worlds, int ncol) {
            py::array_t<double> out({worlds.size(), static_cast<py::ssize_t>(ncol)});
            b.normal(worlds.data(), static_cast<int>(worlds.size()), ncol, out.mutable_data());
            return out;
          },
          py::arg("worlds"), py::arg("ncol"), "Standard normal numbers, as uniform().");
  py::class_<Batch> c = mod.attr("Batch");
  using S = py::ssize_t;
  auto prop = [&](const char* name, auto getter, const char* doc) { c.def_property_readonly(name, getter, doc); };
  prop("q", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.q(), {b.size(), S(b.model().nq)}); }, "[N, nq] positions");
  prop("u", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.u(), {b.size(), S(b.model().nv)}); }, "[N, nv] velocities");
  prop("ctrl", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.ctrl(), {b.size(), S(b.model().nu)}); }, "[N, nu] controls");
  prop("x", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.x(), {b.size(), S(b.model().nparticle), S(3)}); }, "[N, nparticle, 3] particle positions");
  prop("v", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.v(), {b.size(), S(b.model().nparticle), S(3)}); }, "[N, nparticle, 3] particle velocities");
  prop("particle_force", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.particle_force(), {b.size(), S(b.model().nparticle), S(3)}); },
       "[N, nparticle, 3] external forces on the particles (N), held over each step until changed");
  prop("actuator_act", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.actuator_act(), {b.size(), S(b.model().na)}); }, "[N, na] the actuators' activations (MuJoCo's act: actuators with activation dynamics read them instead of ctrl; each step advances them, reset zeroes them)");
  prop("activation", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.activation(), {b.size(), S(b.model().nactgroup)}); }, "[N, nactgroup] each activation group's value: active volumetric strain of tetrahedra, natural curvature (1/m) of rod nodes, natural angle (rad) of shell hinges");
  prop("status", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.status(), {b.size()}); }, "[N] 0 ok, 1 diverged in the last step");
  prop("friction_scale", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.friction_scale(), {b.size()}); }, "[N] friction multiplier per world");
  prop("mass_scale", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.mass_scale(), {b.size()}); }, "[N] mass multiplier per world (bodies, particles)");
  prop("stiffness_scale", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.stiffness_scale(), {b.size()}); },
       "[N] stiffness multiplier per world (Young's modulus of every tetrahedron; Poisson's ratio kept)");
  prop("gravity", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.gravity(), {b.size(), S(3)}); }, "[N, 3] gravity per world");
  prop("medium", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.medium(), {b.size(), S(3)}); },
       "[N, 3] the surrounding medium per world: density (kg/m^3), drag coefficient, viscosity (Pa s); "
       "buoyancy and viscosity act on rods and shells, drag on shell triangles");
  // Mocap poses and equality switches: views, and assignment with a shape/dtype check.
  c.def_property(
      "mocap_pos", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.mocap_pos(), {b.size(), S(b.model().nmocap), S(3)}); },
      [](Batch& b, py::array a) { assign_array<double>(a, b.mocap_pos(), {b.size(), S(b.model().nmocap), S(3)}, "mocap_pos"); },
      "[N, nmocap, 3] mocap body positions (writable view; per-world parameters: reset() keeps them)");
  c.def_property(
      "mocap_quat", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.mocap_quat(), {b.size(), S(b.model().nmocap), S(4)}); },
      [](Batch& b, py::array a) { assign_array<double>(a, b.mocap_quat(), {b.size(), S(b.model().nmocap), S(4)}, "mocap_quat"); },
      "[N, nmocap, 4] mocap body orientations (w, x, y, z), normalised when applied");
  c.def_property(
      "eq_active", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.eq_active(), {b.size(), S(b.model().neq)}); },
      [](Batch& b, py::array a) { assign_array<uint8_t>(a, b.eq_active(), {b.size(), S(b.model().neq)}, "eq_active"); },
      "[N, neq] uint8: 1 where the equality constraint is on (reset() keeps it)");
  prop("xpos", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.xpos(), {b.size(), S(b.model().nbody), S(3)}); }, "[N, nbody, 3] body origins");
  prop("xquat", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.xquat(), {b.size(), S(b.model().nbody), S(4)}); }, "[N, nbody, 4] body orientations (w, x, y, z)");
  prop("xipos", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.xipos(), {b.size(), S(b.model().nbody), S(3)}); }, "[N, nbody, 3] body centres of mass");
  prop("cinert", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.cinert(), {b.size(), S(b.model().nbody), S(10)}); }, "[N, nbody, 10] MuJoCo's com-based inertia");
  prop("cvel", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.cvel(), {b.size(), S(b.model().nbody), S(6)}); }, "[N, nbody, 6] MuJoCo's com-based velocity (angular, linear)");
  prop("cfrc_ext", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.cfrc_ext(), {b.size(), S(b.model().nbody), S(6)}); }, "[N, nbody, 6] contact wrench on each body (torque, force), com-based");
  prop("qfrc_actuator", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.qfrc_actuator(), {b.size(), S(b.model().nv)}); }, "[N, nv] actuator forces in joint space");
  prop("sensordata", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.sensordata(), {b.size(), S(b.model().nsensordata)}); }, "[N, nsensordata] sensor readings in MuJoCo's layout (the model's sensor_adr, sensor_dim)");
  prop("site_xpos", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.site_xpos(), {b.size(), S(b.model().nsite), S(3)}); }, "[N, nsite, 3] site positions");
  prop("site_xmat", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.site_xmat(), {b.size(), S(b.model().nsite), S(3), S(3)}); }, "[N, nsite, 3, 3] site orientations");
  prop("geom_contact", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.geom_contact(), {b.size(), S(b.model().ngeom)}); }, "[N, ngeom] 1 where the geom had an active contact");
  prop("geom_static_contact", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.geom_static_contact(), {b.size(), S(b.model().ngeom)}); }, "[N, ngeom] 1 where the geom touched a static geom (the ground)");
  prop("geom_dynamic_contact", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.geom_dynamic_contact(), {b.size(), S(b.model().ngeom)}); }, "[N, ngeom] 1 where the geom touched a moving body or a particle (not the ground)");
  prop("geom_force", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.geom_force(), {b.size(), S(b.model().ngeom)}); }, "[N, ngeom] summed normal contact force (N)");
  prop("chamber_volume", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.chamber_volume(), {b.size(), S(b.model().nchamber)}); },
       "[N, nchamber] each pressure chamber's enclosed volume (m^3; Model.chamber_volumes at one state)");
  prop("soft_volume", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.soft_volume(), {b.size(), S(b.model().nsoft)}); }, "[N, nsoft] volume of each soft body (m^3; Model.soft_volume0 at rest)");
  c.def(
      "set_observation",
      [](Batch& b, const std::vector<std::tuple<std::string, int, int>>& segments) {
        std::vector<ObsSegment> segs;
        for (const auto& [name, offset, length] : segments) segs.push_back({obs_field(name), offset, length});
        b.set_observation(segs);
      },
      py::arg("segments"),
      "Fused observation: [(field, offset, length), ...] slices of each world's row of the named arrays "
      "(q, u, xpos, xquat, xipos, cinert, cvel, cfrc_ext, qfrc_actuator, site_xpos; offsets within one "
      "world's flattened row), concatenated. Gathered now for every world, then in C++ by every step(), "
      "forward() and reset() for the worlds they touch (issue 23: no NumPy pass over all worlds).");
  prop("observation_segments", [](Batch& b) {
    py::list out;
    for (const ObsSegment& g : b.observation_segments()) out.append(py::make_tuple(obs_field_name(g.field), g.offset, g.length));
    return out;
  }, "the set_observation segments as (field, offset, length) tuples ([] when none is set)");
  c.def_property(
      "observation",
      [](py::object s) {
        auto& b = s.cast<Batch&>();
        py::array_t<double> a = arr(s, b.observation(), {b.size(), S(b.observation_dim())});
        a.attr("setflags")(py::arg("write") = false);  // the batch's to write (assign to restore)
        return a;
      },
      [](Batch& b, py::array a) { assign_array<double>(a, b.observation(), {b.size(), S(b.observation_dim())}, "observation"); },
      "[N, dim] the fused observation of set_observation (read-only view; dim 0 when none is set). A world "
      "whose step diverged keeps its last row. Assigning an [N, dim] float64 array replaces the rows "
      "(restoring a saved environment).");
  prop("mass_centre", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.mass_centre(), {b.size(), S(3)}); },
       "[N, 3] centre of mass of all bodies (mjData.subtree_com of the world body; with mass_scale)");
  prop("ncontact", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.ncontact(), {b.size()}); }, "[N] active contacts");
  prop("contact_depth", [](py::object s) { auto& b = s.cast<Batch&>(); return arr(s, b.contact_depth(), {b.size()}); },
       "[N] deepest penetration (m) among the contacts the last step detected at its start (what the step before left)");
}
