import torch
from transformers import Trainer


class GraphedLayersTrainer(Trainer):
    """Turns the model's blocks into graphed callables on the first training step."""

    def training_step(self, model, inputs, num_items_in_batch=None):
        if not getattr(self, "graphed", False):
            sample = torch.randn(self.args.per_device_train_batch_size, 128, 768, device="cuda",
                                 requires_grad=True)
            model.blocks = torch.cuda.make_graphed_callables(model.blocks, (sample,))
            self.graphed = True
        return super().training_step(model, inputs, num_items_in_batch)


class PregraphedTrainer(Trainer):
    """Graphs the blocks when the Trainer is made, before any loader exists."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        sample = torch.randn(8, 128, 768, device="cuda", requires_grad=True)
        self.model.blocks = torch.cuda.make_graphed_callables(self.model.blocks, (sample,))
