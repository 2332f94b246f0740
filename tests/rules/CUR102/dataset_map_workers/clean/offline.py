from clean.shards import embed_rows


def build_cache(dataset):
    return dataset.map(embed_rows, num_proc=16)  # ok: CUR102
