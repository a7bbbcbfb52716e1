// Solver options (per Model/batch, not per world). The defaults live here and nowhere else
// (the Python bindings and stubs take theirs from a default-constructed SolverOptions; a
// test checks the docstrings). They follow nonsmooth-newton-ncp.txt: zero start (eqs.
// 67-68), damped step t = 0.75 (§8.1), regularisation 1e-6 (§8.4), FB with the
// effective-mass r-factor (eq. 66, Fig. 17; the time-step r on rows that move a particle:
// RScaling::Mixed), PCR with a Jacobi preconditioner (§8.2).
// Iteration counts: the largest of Table 2 (8 Newton, 50 linear), which the heavy stack
// needs (with 20 linear iterations its 4096:1 system is solved loosely enough that the
// stack creeps sideways by centimetres over 10 s), unless the model asks for its own.
#pragma once

#include "ncpgym/collision/detect.hpp"
#include "ncpgym/solver/linear.hpp"

namespace ncpgym {

enum class NcpFunction { FischerBurmeister = 0, MinimumMap = 1 };
// Complementarity preconditioner r (§7, Fig. 17): identity, time-step scaled (h^2 for
// position rows, h for friction rows), time-step scaled effective mass (eq. 66), or mixed
// (the default): eq. 66 on every row except the rows that move a particle (normal and
// friction), which take the time-step r (h^2, h). Why: eq. 66 takes a row's effective mass
// from diag J H^-1 J^T, and for a particle of a soft body H holds only the particle's mass,
// not the elastic stiffness that carries it, so a stiff finger's contact row is credited a
// 30-50x larger response than it has (a PneuNet finger-ball row: 1,546 from the mass, 27-56
// from J K^-1 J^T): the held ball jittered against the mount by 8 mm (0.06 mm mixed), and on
// friction rows the huge r switches a contact between sticking (W ~ 0) and released (W
// large) as |lambda_f| crosses the cone, which made Newton diverge within the step when
// rigid fingers squeeze a soft ball (AllegroSqueeze at 6 iterations: 26 of 32 scripted
// episodes, 31 with the time-step r). The price: sticking on a soft surface converges more
// slowly (Fetch's tomato needs 10 iterations instead of 8). Rows between articulated bodies
// keep eq. 66 (the time-step r lets the arch drift 2.6 against 0.36 mm), so rigid-only
// worlds are unchanged. docs/architecture.md, "One set of solver defaults".
enum class RScaling { Identity = 0, TimeStep = 1, EffectiveMass = 2, Mixed = 3 };

inline constexpr int kDefaultNewtonIterations = 8;
inline constexpr int kDefaultLinearIterations = 50;
inline constexpr int kAuto = -1;  // a switch resolve() turns on or off from the model

struct SolverOptions {
  // 0 (unset): the model's count (Builder::set_solver_iterations) if it sets one, else the
  // default above. resolve() fills them in.
  int newton_iterations = 0;
  int linear_iterations = 0;
  // Early exit: the Newton iteration stops at the first iterate (after the first update)
  // whose NCP residual (max |phi| of eq. 58, m/s) and momentum residual (max |H^-1 g| of
  // eq. 57, m/s or rad/s) are both below this (0: off; every iteration runs). Default since
  // session 31, when the warm start made resting steps converge to round-off in one
  // iteration; at 1e-9 m/s the step's velocities are within about that of the converged
  // step's (positions within h x 1e-9 per step).
  // Newton iterations per step (one thread, h = 1/120, 6 s; arch 10 s): rocks 7.8 -> 3.8,
  // heavy stack 8.0 -> 1.0, table pile 7.9 -> 5.8 (1.0 in the last second), arch 8.0 -> 6.7;
  // the humanoid and the 50-body pile (a capsule still rolls) run their 8. 1e-5 saved more
  // (arch 2.1) but moved slow analytic scenes by 1e-4-1e-3 relative (buoyancy, drag).
  // Since session 34 the dual path checks iterate 0 too (the warm start itself): a resting
  // step then solves nothing (8 perturbed starts each, median us/step: arch 630 -> 310,
  // heavy stack 50 -> 25, rocks 1,883 -> 1,675, table pile 3,988 -> 3,784; outcomes equal).
  double tolerance = 1e-9;
  // Inexact Newton: the iterative linear solvers (PCR, PCG, Jacobi, Gauss-Seidel) stop
  // once the residual of eq. 59 is below this fraction of its right-hand side (a constant
  // forcing term, Dembo, Eisenstat & Steihaug 1982); 0 runs every linear iteration.
  double linear_tolerance = 0.0;
  double step = 0.75;           // damped Newton step t
  double regularization = 1e-6; // epsilon on the system diagonal
  // Marquardt damping of the impulse update: each dual row's diagonal grows by proximal x
  // its own J_eff H^-1 J_eff^T entry (scale-free, unlike `regularization`). It changes the
  // Newton matrix only, not the NCP function, so converged steps are the same; it keeps an
  // exact direction (linear = KKT, LDLT) from shifting the impulses of statically
  // indeterminate contacts along the near-null space of J H^-1 J^T, which PCR's truncated
  // iteration never enters (docs/architecture.md, "Direct solves and piles"). 0: off.
  double proximal = 0.0;
  NcpFunction ncp = NcpFunction::FischerBurmeister;
  RScaling rscale = RScaling::Mixed;
  LinearSolverType linear = LinearSolverType::PCR;
  // Start each contact's multipliers from those of the same contact in the world's last
  // step (matched by geoms, particles and position; solver/warm_start.hpp) instead of
  // lambda = 0 (eq. 68; the seed's §8.1 names warm starting as possible). On by default
  // since session 31, with cone_return: over six geometry seeds each (one thread,
  // h = 1/120) the table pile comes to rest (drift 0.00 mm on five, 5.5 on one, against
  // 2.6-368 mm from lambda = 0; transient 0.95-1.99 against 2.1-5.7 mm), the rocks too
  // (drift 0.00 against 0.12-2.07 mm), and the arch (seed masses) and the incline hold at 8
  // Newton iterations (drift 0-0.5 mm, 0; from lambda = 0 they needed 12). It needs the
  // contact refresh: with refresh_depth = 0 a warm-started pile diverged (session 28;
  // docs/architecture.md "Warm start", "Friction outside the cone"). Contacts that move a
  // particle always start from 0. A Batch keeps one memory per world (reset and a diverged
  // step clear it).
  bool warm_start = true;
  double thickness = 0.0;       // contact thickness d of eq. 9
  // The fastest a contact found already penetrating is pushed apart (m/s; 0: no bound). A
  // contact deeper than h * depenetration_speed at the step's start keeps the rest of its
  // depth for later steps (eq. 9's C grows by the excess), instead of being separated within
  // one step at depth / h. 22 URDFs of example-robot-data and rtb-data start with links
  // overlapping by up to 34 cm at qpos0 and were reported diverged within 17 steps
  // (benchmarks/model_coverage.py; MuJoCo's soft contacts ride it out): with the bound two of
  // them ran (panda, quadruped); the others overlap where no joint motion can separate the
  // links, which the loader's self_collision="auto" excludes (session 39). Contacts shallower than h * depenetration_speed (2 mm at h = 2 ms)
  // are untouched: the golden trajectories are bitwise unchanged.
  double depenetration_speed = 1.0;
  // The same for rigid equality constraints (m/s on positions, rad/s on a weld's rotation,
  // joint or tendon units per s on couplings; 0: no bound): an equality violated by more
  // than h * equality_recovery_speed at the step's start (a weld to a mocap body placed far
  // away, a loop closed from an inconsistent pose) is corrected at that speed over several
  // steps instead of within one at violation / h; smaller violations are untouched (goldens
  // bitwise). Gymnasium-Robotics' Fetch models start with the gripper 1.6 m from the mocap
  // body it is welded to: MuJoCo's soft weld pulls it over; a rigid one in one step flung
  // the arm into the torso at 250 m/s, and at 10 m/s it still struck it hard enough to
  // diverge within 0.4 s (benchmarks/model_coverage.py).
  double equality_recovery_speed = 1.0;
  // The same for joint and tendon limits (rad/s or m/s; 0: no bound). example-robot-data's
  // go2 starts (qpos0 = 0) with its calves 0.84 rad beyond their range: one step would snap
  // them back at 420 rad/s. Unconverged steps leave limits violated too (the Humanoid task's
  // 4 Newton iterations: up to 0.045 rad at a step's start), and recovering those more
  // slowly changes a trajectory: at 10 rad/s (0.075 rad per step at its h = 7.5 ms) the
  // humanoid tasks are bitwise unchanged, at 5 they were not.
  double limit_recovery_speed = 10.0;
  double timestep = 0.0;        // 0 (unset): the model's timestep
  // Systems with more rows than this are solved matrix-free (products J H^-1 J^T x through
  // sparse J and sparse rows of H^-1 J^T, or J^T x times the trees' H^-1); smaller ones take
  // the dense form (H^-1 J^T formed each iterate) where it costs fewer flops
  // (Delassus::dense_pays: a few rows on long chains; since session 30, the humanoid goes
  // matrix-free, docs/architecture.md "Matrix-free where it pays"). Gauss-Seidel and LDL^T
  // always take the dense form, assembled. 0: always matrix-free.
  int dense_max_rows = 64;
  // Diagonal geometric-stiffness shift on particle coordinates (eqs. 70-74, the secant taken
  // at fixed lambda: Stepper::geometric_stiffness); never on the articulated bodies, where
  // the seed saw jitter at joint limits.
  bool geometric_stiffness = true;
  // Preconditioner of PCR/PCG: the seed's Jacobi (diagonal), or block Jacobi that inverts
  // each contact's 3 x 3 normal-friction block (better on long chains of contacts).
  bool block_preconditioner = false;
  // Joint springs and position-servo stiffness: folded into H (exact for these linear
  // one-coordinate compliant rows, and they leave the Newton system) or kept as compliant
  // rows of eq. 8.
  bool implicit_springs = true;
  // Worlds with tetrahedra: eliminate the element rows into the particle block and solve
  // the rest by a sparse LDL^T of the quasi-definite KKT system (primal, soft_kkt.cpp), or
  // keep them as dual rows for the `linear` backend as the seed does (dual).
  bool soft_primal = true;
  // Soft surfaces. soft_triangle_contacts: every rigid geom (round shapes by closest
  // points; box, cylinder and hull features clipped to the triangle) also against boundary
  // triangles, for rigid features smaller than the mesh spacing (off by
  // default: where vertex contacts already support a body the extra rows weaken friction
  // holds, e.g. a ball squeezed between soft pads creeps 0.2 mm/s with them, not without).
  // soft_soft_contacts: vertices of one soft body against another's triangles.
  bool soft_triangle_contacts = false;
  bool soft_soft_contacts = true;
  // Rods and shells against shells (a folded shell against itself) and tetrahedral bodies
  // (collision/deformable_contact.cpp); only worlds with rods or shells pay for it.
  bool deformable_contacts = true;
  // Contacts that follow the bodies within a step (solver/refresh.cpp): after the solve,
  // collide again at q^{n+1}; a contact deeper than refresh_depth there that no contact of
  // the step covers (a tumbling box's edge that was not in the manifold at q^n) joins the
  // step's contacts and the step is solved again. 0 turns it off.
  double refresh_depth = 1e-3;
  // Pressure chambers: the follower load p dV/dx is evaluated at every Newton iterate; its
  // stiffness -h^2 p d2V/dx2 (soft/pressure.hpp, exact against finite differences) joins
  // the Newton matrix only with pressure_stiffness. Off by default: it is indefinite, and the
  // wall's initial-stress stiffness it balances (of order p as well) is missing from the
  // element rows (co-rotational elements drop it, Neo-Hookean ones floor it), so adding the
  // load term alone made Newton diverge. Measured on a lone pressure finger (E 0.1 MPa, 20
  // kPa, one 0.02 s step, full Newton steps): with it the residual is 1e4 after 12
  // iterations (linear elements) or the step diverges (Neo-Hookean); without it 2e-13 after
  // 8 (linear) and 1e-9 after 12 (Neo-Hookean); at 2 kPa without it is no slower. A
  // three-finger pressure gripper (E 2 MPa, 0.2 MPa) diverges within 0.6 s with it.
  // Simulator.particle_response (the inverse controller's W) follows this option too.
  bool pressure_stiffness = false;
  // stress_stiffness: the tetrahedra's stress (initial-stress, geometric) stiffness
  //   -h^2 sum_k lambda_k d2c_k/dx2 in the primal Newton matrix (soft/tet.hpp,
  //   tet_newton_block), which the seed's K = M + J^T D^-1 J leaves out. Without it Newton on
  //   a stressed body converges only linearly in the momentum residual (a finger held at
  //   activation 0.2: 7e-3 -> 2e-4 over 6 full steps; with it 7e-3 -> 4e-7 -> 7e-12) and the
  //   pressure gripper diverges above ~1.3 MPa (with it, 2 MPa holds the ball). The exact
  //   term is indefinite under compression: where the assembled KKT matrix shows more
  //   negative pivots than dual rows (its inertia), it is factorised again with every
  //   element block projected to its non-negative eigenvalues (solver_stats "projected").
  //   Off by default: 1.7x per pressure-gripper step on one thread (benchmarks/soft.py: 51.9
  //   against 30.5 ms), 1.6x for the strain gripper's scripted grasp (a 9 x 9 block
  //   per element and iterate), and the tasks' defaults already hold.
  bool stress_stiffness = false;
  // element_multipliers_from_x: the primal path's eliminated element rows take their
  //   multipliers from the positions at every iterate, lambda_s = -c_s(x) / E_s (eq. 8; the
  //   implicit-FEM Newton iteration, Stepper::element_multipliers). False carries the
  //   linearised Newton update from the zero start (eq. 68), as the seed and the dual path do,
  //   which leaves (1 - t)^k of every element's force unsolved after k damped iterations (an
  //   activated Neo-Hookean finger at rest ended its steps at NCP residuals of 480-944; with
  //   the multipliers from x, 1e-9).
  bool element_multipliers_from_x = true;
  // Safeguards of the damped Newton iteration (departures from the seed, measured on the
  // humanoid and the arch; docs/architecture.md "Newton safeguards"):
  // project_impulses: after each update, normal-contact and joint-limit multipliers are
  //   clipped at 0 (the FB Newton step can overshoot to pulling impulses; u stays as
  //   updated, and the momentum residual g of eq. 57 carries the difference into the next
  //   iterate; the step's velocity is the last update's, so after the final update the
  //   reported impulse is the clipped one).
  // bounded_friction_w: where an iterate's friction lies outside the cone (|lambda_f| >
  //   mu lambda_n), W takes the minimum-map value of eq. 105 instead of eq. 104, whose
  //   denominator vanishes there (W -> infinity releases the contact's friction at once).
  bool project_impulses = true;
  bool bounded_friction_w = true;
  // cone_return: friction outside the cone is driven back to a point of the cone's boundary
  //   (the projection of the augmented impulse lambda_f - slip / r, Alart-Curnier) instead of
  //   to zero, and a contact whose normal row separates at an iterate (C > r lambda_n) has no
  //   friction at that iterate (ncp.hpp friction_return, stepper.cpp ncp_terms). Why: on a
  //   resting pile the seed's row slip + W lambda_f sends an iterate's friction that left the
  //   cone to zero, the neighbours then take the load and leave theirs: warm-started at rest
  //   the 50-body pile cycled between two iterates (NCP residual 0.089 / 0.44, velocities
  //   0.01 m/s apart) for any number of Newton iterations; with the return it converges at
  //   the damping's rate (0.04 -> 1e-6 in 12). Without the separation rule a warm-started
  //   contact that opens keeps (1 - t)^k of its impulse and eq. 105's W ~ s / mu_ln grows
  //   without bound. On by default with warm_start (above).
  bool cone_return = true;
  // smooth_full_step: a step whose rows are all bilateral rows of the articulated trees
  //   (equalities, springs as rows: no contact, limit, particle or element rows) takes full
  //   Newton steps (t = 1). The damping of §8.1 is for the non-smooth NCP rows; on a smooth
  //   system it turns Newton's quadratic convergence into a linear (1 - t)^k one: a box
  //   welded to a swinging link drifts 2.8e-8 m over 10 s with t = 0.75 and 8 iterations
  //   (1.3e-5 m when released off the constraint), 5e-16 m with t = 1. Off by default: the Newton matrix uses J(q^n) for the velocity derivative of
  //   C(q- + h G u), exact for hinges and slides but not for quaternion joints, and a loop of
  //   20 light links on ball joints diverges with full steps (2 cm at worst damped). Smooth
  //   steps backtrack from t = 1 by default instead (line_search, below).
  bool smooth_full_step = false;
  // start_from_motion (m/s or rad/s; 0: off, the default): a warm-started step of the dual
  //   path begins its Newton iteration from the state's velocity for every articulated tree
  //   whose fastest coordinate moves faster than this, instead of from u = 0 (eq. 67), and
  //   the remembered impulses are matched within how far each geom may move over the step
  //   (WarmStart::apply's reach) instead of 1 mm. Why: the damped update leaves (1 - t)^k of
  //   the distance from the start to the answer, and from u = 0 that is (1 - t)^k of every
  //   velocity a contact touches, an artificial drag: a box sliding on a frictionless plane
  //   at 2 m/s keeps 1.998 m/s after 0.5 s at 8 Newton iterations and 1.58 m/s at 4 (the
  //   seed's Table 2 counts: 37 % of the speed lost per second); started from its motion it keeps 2.000
  //   and exits after about one iteration. Trees slower than the threshold keep u = 0, which
  //   is exact at rest: from the state's velocity a resting stack's small left-over velocity
  //   is carried into the next step instead of dropped, and at 4 / 20 iterations the seed's
  //   heavy stack (4096:1) was pumped apart by it (every tree from its velocity: 3 of 4
  //   perturbed starts; above 1e-3 m/s: 1 of 8; above 0.05, the recommended value: 0 of 8).
  //   At 4 / 20 with 0.05 every pile and the arch did better (rocks within 1.15 mm on six
  //   draws, the arch's drift a tenth); at 8 / 50 it cost 10-18 % on the rocks and the table
  //   pile. Off by default: the tasks' policies were trained with the drag
  //   (docs/architecture.md, "Starting from the motion").
  double start_from_motion = 0.0;
  // momentum_exit (m/s or rad/s; 0: off): at an iterate whose NCP residual is below
  //   `tolerance` but whose momentum residual exceeds this, the dual path tries the velocity
  //   that balances momentum at the iterate's impulses (eq. 57 solved for u at fixed lambda:
  //   u~ + h H^-1 J_eff^T lambda) and ends the step there if both residuals are then below
  //   `tolerance`; otherwise Newton goes on from it if its NCP residual still is, else the
  //   iterate is restored and the step goes on bitwise as without the option
  //   (Stepper::balanced_exit). Why: the damped update shrinks the momentum
  //   residual by only (1 - t) per iterate, and from u = 0 it starts at the velocity of every
  //   body a contact touches, so a pile in which one capsule still rolls ran all 8 iterations
  //   of every resting step although its impulses had converged. Measured (one thread,
  //   h = 1/120, 3 draws each): the 50-body pile 2,325 -> 1,475 us per step at 8 / 50 with the
  //   same penetration and drift; rocks, table pile, arch and heavy stack unchanged (within
  //   2 %); at 4 / 20 the pile 799 -> 762 us. The gate: below 1e-7 the drag it removes is
  //   negligible, and balancing residuals of ~1e-8 m/s left a resting arch creeping at that
  //   speed, which kept its later steps from exiting at iterate 0 (255 -> 763 us per step
  //   with no gate). Not with particles (their shifted H scales the residual) or line searches.
  double momentum_exit = 1e-7;
  // A step whose new velocities exceed this (m/s or rad/s, any coordinate) is reported as
  // diverged and leaves the state unchanged, like a non-finite one (0: no bound).
  // line_search (steps with soft elements on the primal path, and smooth steps): each Newton update tries
  //   the full step t = 1 and halves it (at most 4 times) until the merit |(hvec, H^-1 g)|_2
  //   of the iterate (the row values of eq. 58 and the momentum residual of eq. 57) falls by
  //   the Armijo fraction 1e-4 t; the last update is checked too (one more row evaluation).
  //   Replaces `step`'s fixed damping, which converges linearly ((1 - t)^k on a smooth
  //   system) while full steps overshoot on a non-convex energy: a Neo-Hookean finger whose
  //   activation jumps by 0.035 in one 0.02 s step diverges with full steps, converges
  //   linearly damped (2.3e-4 after 8 iterations) and to 8.5e-7 with the search; the
  //   Neo-Hookean gripper diverges at its third step with the defaults and not with it
  //   (tests/python/test_neohookean_finger.py). Not for rigid contact: on the seed's arch and
  //   heavy stack (8 iterations) it let the arch collapse and the stack drift 2 m, where the
  //   damped step holds 2.3 mm / 1.5e-6 m (the non-smooth rows' full steps overshoot and
  //   the merit accepts them), so rigid-only steps keep `step`.
  //   kAuto (the default): on in worlds with an activated Neo-Hookean element (one in an
  //   activation group), off otherwise. Under random actions (PneuNetGrasp-v0,
  //   material="neohookean", 8 worlds x 400 steps, seed 1) the Neo-Hookean gripper's damped
  //   step diverges in 1,258 of 3,200 world-steps with the other defaults and in none with
  //   the search; the linear co-rotational gripper diverges in none without it, at 37 ms
  //   against 102 ms per 8-world step. Passive Neo-Hookean bodies held by rigid fingers keep
  //   the damped step: with the search Fetch's tomato slipped 5.4 mm in the fingers over the
  //   scripted carry (limit 5; 4.7 damped). Session 32, docs/architecture.md.
  //   Since session 34 the search also runs on smooth steps (rows all bilateral rows of the
  //   trees, as smooth_full_step's) unless line_search is False: there the damped step's
  //   fixed t let a closed loop of light links run away, because the Newton matrix leaves
  //   out the loop's geometric stiffness (eq. 70), which its tension makes larger than a
  //   link's inertia about its own axis: benchmarks/contact_scenes.py's weld_chain (20
  //   capsules of 0.1 kg on ball joints hanging as a loop) grew its momentum residual 3-4x
  //   per iterate within a step and left its loop open by 5.3 cm over 10 s (MuJoCo 1.3 cm),
  //   diverging from 1e-9 rad/s of perturbation; backtracking from t = 1 holds it within
  //   1.7e-5 m, perturbed too, and a smooth step whose search finds no decrease ends there
  //   (stalled: the direction lacks the loop's geometric stiffness). The seed's diagonal secant (eqs. 71-74) on the tree
  //   coordinates was tried first: its shifts came out at 0.2-0.9 against inertias of 1e-4
  //   (the secant credits each coordinate with every coordinate's motion) and the loop still
  //   diverged.
  int line_search = kAuto;
  // Resolved from line_search by resolve() (not an option of its own): smooth steps search.
  bool smooth_search = true;
  double max_speed = 1e4;
  CollisionOptions collision;
};

// The options a solver runs with, resolved once: unset entries (time step, iteration
// counts, line_search) taken from the model or the defaults, and every value validated (throws
// std::invalid_argument naming the option). Stepper and Batch run with resolve(m, opt).
SolverOptions resolve(const Model& m, SolverOptions opt);

}  // namespace ncpgym
