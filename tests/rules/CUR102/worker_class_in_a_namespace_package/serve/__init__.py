from serve.engine.frontend import Engine

__all__ = ["Engine"]
