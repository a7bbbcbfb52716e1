#include "ncpgym/batch/threads.hpp"

#include <pthread.h>

#include <atomic>

namespace ncpgym {
namespace {

std::atomic<bool> team_started{false};  // a team of 2+ threads ran in this process (or a parent)
std::atomic<bool> forked{false};        // this process was forked after one did

// pthread_atfork's child handler: runs in the child right after fork, before fork returns.
void mark_child() {
  if (team_started.load()) forked.store(true);
}

const bool registered = [] { return pthread_atfork(nullptr, nullptr, mark_child) == 0; }();

}  // namespace

int team_size(int requested) {
  if (requested < 2) return requested;
  if (forked.load()) return 1;
  team_started.store(true);
  return requested;
}

bool forked_after_threads() { return forked.load(); }

}  // namespace ncpgym
