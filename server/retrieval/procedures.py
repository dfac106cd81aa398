def register(registry):
    pass
