"""What a fork does to a process that holds CUDA state, observed on a GPU: the facts CUR102
stands on (issue 29). Each case is a small program run in a fresh interpreter, with the
default start method `fork` made explicit; its outcome is "ok" or the first line of the error
its child met. `EXPECTED` is what was observed, the model CUR102 is to encode;
`tests/test_gpu_fork.py` runs the cases where a CUDA GPU and PyTorch are present and compares.

    python3 tests/gpu_fork_cases.py [--json FILE]     # run every case, print the outcomes
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

PRELUDE = """\
import multiprocessing as mp, os, pickle, sys, tempfile, traceback
import torch

def outcome(job, *args):
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        try:
            pool.apply(job, args)
            print("ok")
        except Exception as error:
            print(f"{type(error).__name__}: {str(error).splitlines()[0]}")

def cpu_work(path):
    x = torch.randn(64, 64)
    torch.save(x @ x, path)

def cuda_tensor():
    torch.ones(4, device="cuda").sum().item()

def available_device_tensor():  # the device the child picks by asking, as scripts do
    torch.ones(4, device="cuda" if torch.cuda.is_available() else "cpu").sum().item()

def pinned():
    torch.empty(1024, pin_memory=True)

def parent_cuda_work():
    a = torch.randn(256, 256, device="cuda")
    (a @ a).sum().item()

def forked(job, *args):  # one child forked by Process: what it reads is inherited
    ctx = mp.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    def child():
        try:
            job(*args)
            writer.send("ok")
        except Exception as error:
            writer.send(f"{type(error).__name__}: {str(error).splitlines()[0]}")
    process = ctx.Process(target=child)
    process.start()
    process.join(120)
    print(reader.recv() if reader.poll() else f"exit {process.exitcode}")

def save_staged(path):
    torch.save(STAGED, path)
    assert torch.load(path).sum().item() == STAGED.sum().item()

def unpickled(task, *args):  # a pool worker's step, inside the job: its error is reported
    return pickle.loads(task)(*args)

class Holder:  # an object whose bound method is a task: pickled with it, its tensor too
    def __init__(self, device):
        self.weight = torch.ones(4, device=device)

    def tokenize(self, text):
        return text.split()

def one_rank_group(backend):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29500 + os.getpid() % 1000))
    import torch.distributed as dist
    dist.init_process_group(backend, rank=0, world_size=1)
    t = torch.ones(4, device="cuda" if backend == "nccl" else "cpu")
    dist.all_reduce(t)
"""

CASES = {
    # A: CUDA work in the parent, CPU-only torch work and torch.save in the child
    "cuda_parent_cpu_child": "parent_cuda_work(); outcome(cpu_work, tempfile.mktemp())",
    # A: a Manager's server started after CUDA work
    "cuda_parent_manager": "parent_cuda_work(); m = mp.get_context('fork').Manager(); "
                           "d = m.dict(a=1); print('ok' if d['a'] == 1 else 'wrong'); m.shutdown()",
    # B: pinned memory in the child after CUDA work in the parent
    "cuda_parent_pinned_child": "parent_cuda_work(); outcome(pinned)",
    # B': a CUDA tensor in the child after CUDA work in the parent
    "cuda_parent_cuda_child": "parent_cuda_work(); outcome(cuda_tensor)",
    # C: only is_available()/device_count() in the parent, a CUDA tensor in the child
    "queried_parent_cuda_child": "torch.cuda.is_available(); torch.cuda.device_count(); "
                                 "outcome(cuda_tensor)",
    # C with PyTorch's NVML-based check (the variable is set before torch is imported)
    "nvml_queried_parent_cuda_child": "torch.cuda.is_available(); torch.cuda.device_count(); "
                                      "outcome(cuda_tensor)",
    # C': only is_available()/device_count() in the parent, CPU work in the child
    "queried_parent_cpu_child": "torch.cuda.is_available(); torch.cuda.device_count(); "
                                "outcome(cpu_work, tempfile.mktemp())",
    # C'': only device_count() in the parent (PyTorch asks NVML first), a CUDA tensor in the child
    "counted_parent_cuda_child": "torch.cuda.device_count(); outcome(cuda_tensor)",
    # B'': CPU work in the child, given as a bound method of an object holding a CUDA tensor
    # (a pool pickles each task: the child rebuilds the tensor on the device); and its control
    # (the task is unpickled inside the job, as a pool worker unpickles it before running it:
    # a worker that fails there dies, and the pool waits for its result for ever)
    "cuda_parent_cuda_argument_child": "holder = Holder('cuda'); "
                                       "outcome(unpickled, pickle.dumps(holder.tokenize), 'a b')",
    "cuda_parent_cpu_argument_child": "parent_cuda_work(); holder = Holder('cpu'); "
                                      "outcome(unpickled, pickle.dumps(holder.tokenize), 'a b')",
    # E: the child picks its device by `is_available()` (`analysis.available_devices`):
    # the parent's answer is cached in the child, so it picks CUDA after a parent that
    # initialized it, and CPU-only machines never reach the case
    "queried_parent_available_child": "torch.cuda.is_available(); "
                                      "outcome(available_device_tensor)",
    "cuda_parent_available_child": "parent_cuda_work(); outcome(available_device_tensor)",
    "plain_parent_available_child": "outcome(available_device_tensor)",
    # D: no CUDA in the parent, CUDA work in the child
    "plain_parent_cuda_child": "outcome(cuda_tensor)",
    # importing torch and building CPU tensors creates no CUDA state
    "imported_parent_pinned_child": "torch.randn(8); outcome(pinned)",
    # process groups in the parent
    "gloo_parent_cpu_child": "one_rank_group('gloo'); outcome(cpu_work, tempfile.mktemp())",
    "gloo_parent_cuda_child": "one_rank_group('gloo'); outcome(cuda_tensor)",
    "nccl_parent_cpu_child": "one_rank_group('nccl'); outcome(cpu_work, tempfile.mktemp())",
    "nccl_parent_cuda_child": "one_rank_group('nccl'); outcome(cuda_tensor)",
    # a checkpoint writer: the parent stages CUDA tensors in host memory (pinned by a
    # non-blocking copy, or copied into pinned memory), the forked child saves what it inherits
    "cuda_parent_staged_child": "STAGED = torch.randn(1 << 20, device='cuda').to('cpu', "
                                "non_blocking=True); torch.cuda.synchronize(); "
                                "forked(save_staged, tempfile.mktemp())",
    "cuda_parent_pinned_copy_child": "STAGED = torch.empty(1 << 20, pin_memory=True); "
                                     "STAGED.copy_(torch.randn(1 << 20, device='cuda')); "
                                     "forked(save_staged, tempfile.mktemp())",
    "nccl_parent_staged_child": "one_rank_group('nccl'); STAGED = torch.randn(1 << 20, "
                                "device='cuda').to('cpu', non_blocking=True); "
                                "torch.cuda.synchronize(); forked(save_staged, tempfile.mktemp())",
}

BROKEN = "the child cannot initialize CUDA"
EXPECTED = {
    "cuda_parent_cpu_child": "ok",
    "cuda_parent_manager": "ok",
    "cuda_parent_pinned_child": BROKEN,
    "cuda_parent_cuda_child": BROKEN,
    "queried_parent_cuda_child": BROKEN,
    "nvml_queried_parent_cuda_child": "ok",
    "queried_parent_cpu_child": "ok",
    "counted_parent_cuda_child": "ok",
    "cuda_parent_cuda_argument_child": BROKEN,
    "cuda_parent_cpu_argument_child": "ok",
    "queried_parent_available_child": BROKEN,  # (added 2026-11-29 from the source; observed)
    "cuda_parent_available_child": BROKEN,
    "plain_parent_available_child": "ok",
    "plain_parent_cuda_child": "ok",
    "imported_parent_pinned_child": "ok",
    "gloo_parent_cpu_child": "ok",
    "gloo_parent_cuda_child": "ok",
    "nccl_parent_cpu_child": "ok",
    "nccl_parent_cuda_child": BROKEN,
    "cuda_parent_staged_child": "ok",
    "cuda_parent_pinned_copy_child": "ok",
    "nccl_parent_staged_child": "ok",
}
"""What the cases gave on an NVIDIA H200 (PyTorch 2.11.0+cu130, Python 3.12.3, 2026-11-27):
a fork breaks where the parent initialized CUDA (any CUDA work, `is_available()` included
unless `PYTORCH_NVML_BASED_CUDA_CHECK=1`, an NCCL process group; not `device_count()` alone,
which PyTorch answers from NVML first: counted_parent_cuda_child, added 2026-11-28)
and the child uses CUDA: a tensor on the device ("RuntimeError: Cannot re-initialize CUDA in
forked subprocess"), pinned memory ("AcceleratorError: CUDA error: initialization error"). A
child doing CPU work, a Manager's server, a parent with a Gloo group and no CUDA, or a parent
that only imported torch, all work. So does a checkpoint writer's child saving the CUDA
tensors its parent staged in pinned host memory (a non-blocking copy to the CPU, or a copy
into `pin_memory=True`), with or without an NCCL group (same machine, same day: the staged
cases). A child doing CPU work breaks too where its task is a bound method of an object that
holds a CUDA tensor: the pool pickles the task and the child rebuilds the tensor on the device
(cuda_parent_cuda_argument_child, same machine, 2026-11-28, session 21; the task unpickled
inside the job, where a pool unpickles it before the job: a worker failing there dies and the
pool hangs, which is how the pool itself shows it; CUR102 does not read task arguments yet).
A child putting a tensor on `"cuda" if torch.cuda.is_available() else "cpu"` breaks under a
parent that asked `is_available()` or did CUDA work, and works under one that did neither
(the three `*_available_child` cases: expected from PyTorch's source in session 27, observed on
the same kind of machine, PyTorch 2.11.0+cu130, 2026-11-29: all 22 cases as listed)."""


def kind(outcome: str) -> str:
    """An outcome as EXPECTED names it (PyTorch's error types and wording vary by version)."""
    if "Cannot re-initialize CUDA in forked subprocess" in outcome or \
            "CUDA error: initialization error" in outcome:
        return BROKEN
    return outcome


def run(name: str, timeout: float = 120) -> str:
    """The outcome of one case, in a fresh interpreter."""
    environment = dict(os.environ)
    environment.pop("PYTORCH_NVML_BASED_CUDA_CHECK", None)
    if name.startswith("nvml_"):
        environment["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    program = PRELUDE + "\nif __name__ == '__main__':\n" + textwrap.indent(
        CASES[name].replace("; ", "\n"), "    ")
    try:
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              timeout=timeout, env=environment)
    except subprocess.TimeoutExpired:
        return "timeout"
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return f"exit {done.returncode}: " + (done.stderr.strip().splitlines() or [""])[-1]
    return lines[-1]


def main() -> None:
    outcomes = {name: run(name) for name in CASES}
    for name, outcome in outcomes.items():
        mark = "" if kind(outcome) == EXPECTED[name] else f"   (expected {EXPECTED[name]})"
        print(f"{name}: {outcome}{mark}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as file:
            json.dump(outcomes, file, indent=1)


if __name__ == "__main__":
    main()
