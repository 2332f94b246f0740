"""Where the package's native events are logged."""


def log_event(kind, detail):
    print("ringlog event", kind, detail.decode(errors="replace"))
