"""Exceptions raised by ncpgym."""


class ModelError(ValueError):
    """A model file is missing, malformed, or uses a feature ncpgym cannot simulate."""


class UnsupportedFeatureError(ModelError):
    """The model uses features that change its dynamics and that ncpgym does not support
    yet. The message names each element and the file."""
