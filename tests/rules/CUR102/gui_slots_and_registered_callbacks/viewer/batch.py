"""A batch tool with its own entry point: its window forks from a slot, and nothing in this
process has touched CUDA."""

import multiprocessing
import sys

from PySide6.QtWidgets import QApplication, QPushButton, QWidget

from viewer import jobs


class BatchPage(QWidget):
    def __init__(self):
        super().__init__()
        QPushButton("Run").clicked.connect(self.on_run)

    def on_run(self):
        child = multiprocessing.Process(target=jobs.caption_images, args=("batch",))  # ok: CUR102
        child.start()


class HelpPage(QWidget):
    def __init__(self):
        super().__init__()
        QPushButton("Help").clicked.connect(self.close)


def build():
    return [page() for page in (BatchPage, HelpPage)]


if __name__ == "__main__":
    app = QApplication(sys.argv)
    pages = build()
    sys.exit(app.exec())
