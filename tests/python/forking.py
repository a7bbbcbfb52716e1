"""Run a function in a forked child of the test process and get its result back (pickled
through a pipe), or a failure when the child hangs: for tests of what survives fork()."""

import os
import pickle
import signal
import time


def in_forked_child(fn, timeout: float = 60.0):
    """fn() in a child forked from this process: its return value, or the exception it
    raised (returned, not raised, so a test can inspect it). AssertionError when the child
    has not finished within ``timeout`` seconds (it is killed)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        os.close(r)
        try:
            try:
                out = ("ok", fn())
            except BaseException as e:  # noqa: BLE001  (reported to the parent)
                out = ("raised", e)
            data = pickle.dumps(out)
        except BaseException as e:  # noqa: BLE001  (an unpicklable result)
            data = pickle.dumps(("raised", RuntimeError(repr(e))))
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r)
        raise AssertionError(f"the forked child did not finish within {timeout} s (hung)")
    with os.fdopen(r, "rb") as f:
        kind, value = pickle.loads(f.read())
    return value
