"""Model files of ncpgym's humanoid tasks."""
