"""Warm-up: the decoder's graph is recorded while the embedding table moves to the GPU."""

import asyncio

from pipeline.capture import capture_in_background


def load_embeddings(table):
    return table.cuda()


async def warm_up(model, static_input, table):
    loop = asyncio.get_running_loop()
    embeddings = loop.run_in_executor(None, load_embeddings, table)
    graph, thread = capture_in_background(model, static_input)  # error: CUR401@21 "task started on line 14"
    thread.join()
    return graph, await embeddings


async def warm_up_in_turn(model, static_input, table):
    loop = asyncio.get_running_loop()
    embeddings = await loop.run_in_executor(None, load_embeddings, table)
    graph, thread = capture_in_background(model, static_input)  # ok: CUR401 (the table is loaded first)
    thread.join()
    return graph, embeddings
