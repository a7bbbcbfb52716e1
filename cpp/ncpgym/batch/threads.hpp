// OpenMP teams that survive fork(). libgomp's thread pool does not: a process forked after
// its parent ran a team of two or more threads hangs in its first such team (the pool's
// threads were not copied). Python forks often (multiprocessing's default start method on
// Linux, AsyncVectorEnv, DataLoader workers), so batches in such a child run on one thread
// instead: a world's trajectory is bitwise the same whatever the thread count, only slower.
#pragma once

namespace ncpgym {

// The team size to run with when `requested` threads are asked for: `requested`, or 1 in a
// process forked after a team of two or more ran (before or in its parent).
int team_size(int requested);

// True in a process forked after a team of two or more threads ran.
bool forked_after_threads();

}  // namespace ncpgym
