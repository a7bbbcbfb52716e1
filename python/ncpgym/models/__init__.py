def load_model(*a, **k): raise NotImplementedError
