import pytorch_lightning as pl

from asr.callbacks import GraphedAtStart, GraphedValidation
from asr.data import plain_loader, utterance_loader


def evaluate(model, dataset, collate):
    trainer = pl.Trainer(devices=1, callbacks=[
        GraphedValidation(),  # error: CUR403 "`GraphedValidation.on_validation_batch_start` (callbacks.py)"
        GraphedAtStart(),  # ok: CUR403
    ])
    trainer.validate(model, dataloaders=utterance_loader(dataset, collate))


def evaluate_plain(model, dataset, collate):
    trainer = pl.Trainer(devices=1, callbacks=[GraphedValidation()])  # ok: CUR403
    trainer.validate(model, dataloaders=plain_loader(dataset, collate))


def fit_and_validate(model, train_set, val_set, collate):
    trainer = pl.Trainer(max_epochs=10, callbacks=[GraphedValidation()])  # error: CUR403 "validation loop"
    trainer.fit(model, plain_loader(train_set, collate), utterance_loader(val_set, collate))
