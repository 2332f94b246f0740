"""The window's tabs: each button's slot starts a worker thread that runs a child process."""

import multiprocessing

from PySide6.QtCore import QThread
from PySide6.QtWidgets import QPushButton, QWidget

from viewer import jobs


class ChildThread(QThread):
    def __init__(self, job, folder):
        super().__init__()
        self.job = job
        self.folder = folder

    def run(self):
        child = multiprocessing.Process(target=self.job, args=(self.folder,))  # error: CUR102
        child.start()
        child.join()


class SpawningThread(QThread):
    def __init__(self, folder):
        super().__init__()
        self.folder = folder

    def run(self):
        context = multiprocessing.get_context("spawn")
        child = context.Process(target=jobs.caption_images, args=(self.folder,))  # ok: CUR102
        child.start()
        child.join()


class CaptionTab(QWidget):
    def __init__(self):
        super().__init__()
        button = QPushButton("Caption")
        button.clicked.connect(self.on_caption)

    def on_caption(self):
        self.worker = ChildThread(jobs.caption_images, "images")
        self.worker.start()


class ExportTab(QWidget):
    def __init__(self):
        super().__init__()
        button = QPushButton("Export")
        button.clicked.connect(self.on_export)

    def on_export(self):
        self.worker = SpawningThread("images")
        self.worker.start()
