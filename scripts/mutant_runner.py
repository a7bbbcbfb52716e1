"""Shared by scripts/mutants_manual.py and scripts/mutants_cpp.py: a pytest launcher that
imports ncpgym from a scratch package (a mutated copy) instead of the editable install."""

from pathlib import Path


def write_runner(path: Path | str, package_dir: Path | str) -> str:
    """Writes a script that runs pytest (its arguments) with ``package_dir/ncpgym`` as the
    imported package: the editable install's import hook is removed and the scratch
    directory put first on sys.path; it fails if ncpgym still comes from elsewhere."""
    pkg = str(package_dir)
    Path(path).write_text(
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in type(f).__module__]\n"
        f"sys.path.insert(0, {pkg!r})\n"
        "import ncpgym, pytest\n"
        f"assert ncpgym.__file__.startswith({pkg!r}), ncpgym.__file__\n"
        "sys.exit(pytest.main(sys.argv[1:]))\n")
    return str(path)
