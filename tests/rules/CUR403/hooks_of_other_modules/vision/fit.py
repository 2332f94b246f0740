import lightning.pytorch as pl
from transformers import TrainingArguments

from vision.callbacks import GraphedStep, WarmStartGraph
from vision.data import cached_image_loader, image_loader
from vision.trainers import GraphedLayersTrainer, PregraphedTrainer


def fit(module, train_set):
    trainer = pl.Trainer(max_epochs=90, callbacks=[
        GraphedStep(),  # error: CUR403 "`GraphedStep.on_train_batch_start` (callbacks.py)"
        WarmStartGraph(),  # ok: CUR403
    ])
    trainer.fit(module, train_dataloaders=image_loader(train_set))


def fit_cached(module, train_set):
    trainer = pl.Trainer(max_epochs=90, callbacks=[GraphedStep()])  # ok: CUR403
    trainer.fit(module, train_dataloaders=cached_image_loader(train_set))


def tune(model, train_set):
    args = TrainingArguments(output_dir="runs", dataloader_num_workers=8, bf16=True)
    GraphedLayersTrainer(model=model, args=args, train_dataset=train_set).train()  # error: CUR403 "GraphedLayersTrainer.training_step"
    PregraphedTrainer(model=model, args=args, train_dataset=train_set).train()  # ok: CUR403
