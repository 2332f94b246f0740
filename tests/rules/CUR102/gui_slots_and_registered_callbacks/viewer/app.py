"""The viewer's entry point."""

import atexit
import sys

from PySide6.QtWidgets import QApplication

from viewer.autosave import autosave, flush_cache
from viewer.window import MainWindow


def main():
    app = QApplication(sys.argv)
    timer = threading_timer(autosave)
    window = MainWindow()
    atexit.register(flush_cache)
    window.show()
    timer.cancel()
    return app.exec()


def threading_timer(callback):
    import threading

    timer = threading.Timer(600, callback)
    timer.start()
    return timer


if __name__ == "__main__":
    sys.exit(main())
