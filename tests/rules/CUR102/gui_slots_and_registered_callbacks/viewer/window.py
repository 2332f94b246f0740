"""The main window: it asks about the GPU, then builds its tabs from a table of classes."""

from PySide6.QtWidgets import QTabWidget, QWidget

from viewer.gpu import describe_gpu
from viewer.tabs import CaptionTab, ExportTab


class MainWindow(QWidget):
    def __init__(self):
        super().__init__()
        self.gpu_label = describe_gpu()
        self.tabs = QTabWidget(self)
        pages = {"Caption": (CaptionTab, 2), "Export": (ExportTab, 1)}
        for title, (page_class, stretch) in pages.items():
            page = page_class()
            self.tabs.addTab(page, title)
