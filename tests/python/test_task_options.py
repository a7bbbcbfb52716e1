"""ncpgym.tasks.options: the keyword checks several tasks share (training aids' shares)."""

import pytest

from ncpgym.tasks.options import share


def test_share_accepts_the_closed_unit_interval_as_float():
    """Catches: an open bound (0 or 1 refused), the int not made a float, the value altered."""
    for v, want in ((0, 0.0), (0.0, 0.0), (0.25, 0.25), (1, 1.0), (1.0, 1.0)):
        got = share("weak_gravity", v)
        assert got == want and type(got) is float


@pytest.mark.parametrize("bad", [-1e-12, 1.0 + 1e-12, -0.5, 2, True, False, "0.5", None, [0.5]])
def test_share_refuses_what_is_not_a_number_in_0_1_naming_the_option(bad):
    """Catches: bools passing as 0/1, strings or None passing, a bound check dropped or widened,
    a message that names another option or not the value."""
    with pytest.raises(ValueError) as e:
        share("near_goals", bad)
    assert str(e.value) == f"near_goals: expected a share in [0, 1], got {bad!r}"
