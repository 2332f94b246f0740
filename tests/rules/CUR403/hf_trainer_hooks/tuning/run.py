import torch
from transformers import Trainer, TrainerCallback, TrainingArguments

from tuning.graphs import capture_step


class StepGraphCallback(TrainerCallback):
    """Captures the model's forward and backward at the first optimizer step."""

    def __init__(self, static_inputs):
        self.static_inputs = static_inputs
        self.graph = None

    def on_step_begin(self, args, state, control, model=None, **kwargs):
        if self.graph is None and state.global_step == args.warmup_steps:
            self.graph, self.loss = capture_step(model, self.static_inputs)  # error: CUR403 "in Trainer.train's loop"


class TrainBeginGraph(TrainerCallback):
    """Captures in on_train_begin: the epoch's iterator is made after it."""

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):  # ok: CUR403
            self.static_out = model(**self.static_inputs)


class StepEndGraph(TrainerCallback):
    """Captures after the optimizer step, before the next step's batches are taken."""

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if state.global_step == args.warmup_steps:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR403 "StepEndGraph.on_step_end"
                self.static_out = model(**self.static_inputs)


class OptimizerStepGraph(TrainerCallback):
    def on_optimizer_step(self, args, state, control, model=None, **kwargs):
        if state.global_step == args.warmup_steps:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):  # ok: CUR403
                self.static_out = model(**self.static_inputs)


class GraphedLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        if not hasattr(self, "graph"):
            self.static_inputs = {k: v.clone() for k, v in inputs.items()}
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR403 "GraphedLossTrainer.compute_loss"
                self.static_loss = model(**self.static_inputs).loss
        for name, value in inputs.items():
            self.static_inputs[name].copy_(value)
        self.graph.replay()
        return self.static_loss


def fine_tune(model, train_set, static_inputs):
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=16,
                             dataloader_num_workers=4, warmup_steps=20)
    trainer = Trainer(model=model, args=args, train_dataset=train_set)
    trainer.add_callback(StepGraphCallback(static_inputs))
    trainer.add_callback(TrainBeginGraph())
    trainer.add_callback(StepEndGraph())
    trainer.add_callback(OptimizerStepGraph())
    trainer.train()
    GraphedLossTrainer(model=model, args=args, train_dataset=train_set).train()
