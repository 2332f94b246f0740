from clean.shards import ShardTable, embed_rows


def refresh(dataset, rows):
    table = ShardTable(rows).map(embed_rows, workers=4, num_procs=4)  # ok: CUR102
    return table, dataset.map(embed_rows, num_proc=4)  # ok: CUR102
