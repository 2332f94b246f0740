"""os.fork(): what the child runs is the branch that tests the result against 0."""

import os

import torch


def serve(model_path):
    model = torch.load(model_path).cuda()
    pid = os.fork()  # error: CUR102
    if pid == 0:
        torch.ones(1, device="cuda").sum().item()  # the child warms its own cache: fails
        os._exit(0)
    return model, pid


def archive(model_path, directory):
    model = torch.load(model_path).cuda()
    if os.fork():  # ok: CUR102
        return model
    os.execvp("tar", ["tar", "czf", directory + ".tgz", directory])


def report(model_path):
    model = torch.load(model_path).cuda()
    pid, fd = os.forkpty()  # ok: CUR102
    if pid != 0:
        return model, fd
    print("child on a terminal")
    os._exit(0)
