"""A training rank hands checkpoint work to forked children."""

import os
import multiprocessing as mp

import torch
import torch.distributed as dist


def write_staged(state, path):
    torch.save(state, path)  # CPU tensors, staged by the parent


def verify_on_device(path):
    state = torch.load(path, map_location="cuda")
    return all(torch.isfinite(t).all().item() for t in state.values())


def save_async(model, path):
    dist.init_process_group(backend="nccl")
    state = {k: v.detach().to("cpu") for k, v in model.state_dict().items()}
    ctx = mp.get_context("fork")
    writer = ctx.Process(target=write_staged, args=(state, path))  # ok: CUR102
    writer.start()
    checker = ctx.Process(target=verify_on_device, args=(path,))  # error: CUR102
    checker.start()
    return writer, checker


def register_buffers(buffers):
    os.environ["RDMAV_FORK_SAFE"] = "1"  # fork protection for the registrations below
    handles = [torch.cuda.caching_allocator_alloc(len(b)) for b in buffers]
    cleaner = mp.get_context("fork").Process(target=print, args=("cleanup",))  # error: CUR102
    cleaner.start()
    return handles
