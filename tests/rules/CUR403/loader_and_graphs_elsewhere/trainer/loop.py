from trainer.data import make_eval_loader, make_loader
from trainer.graphs import StepGraph


def fit(step, dataset, static_batch):
    graph = StepGraph(step)
    for number, batch in enumerate(make_loader(dataset)):
        static_batch.copy_(batch)
        if number == 3:
            graph.capture(static_batch)  # error: CUR403 "pinned DataLoader"
        graph.replay()


def evaluate(step, dataset, static_batch):
    graph = StepGraph(step)
    for number, batch in enumerate(make_eval_loader(dataset)):
        static_batch.copy_(batch)
        if number == 0:
            graph.capture(static_batch)  # ok: CUR403
        graph.replay()
