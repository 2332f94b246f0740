"""Fused losses with hand-written backward passes."""

import torch


class FusedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        ctx.save_for_backward(logits, target)
        return torch.nn.functional.cross_entropy(logits, target, reduction="none")

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        grad = torch.softmax(logits, dim=-1)
        grad[torch.arange(target.numel()), target] -= 1
        if torch.equal(grad_output, torch.ones_like(grad_output)):  # skip the scaling
            return grad, None
        return grad * grad_output.unsqueeze(-1), None


class ScaledSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, debug):
        ctx.save_for_backward(x)
        ctx.scale = scale
        ctx.debug = debug
        return x * x * scale

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if ctx.scale > 1:  # a Python number
            grad_output = grad_output * ctx.scale
        if ctx.debug:
            print(grad_output.abs().max().item())
        return 2 * x * grad_output, None, None


def fused_cross_entropy(logits, target):
    return FusedCrossEntropy.apply(logits, target).mean()


def scaled_square(x, scale):
    return ScaledSquare.apply(x, scale, False).sum()


def cross_entropy(logits, target, fused):
    if fused:
        return FusedCrossEntropy.apply(logits, target).mean()
    return torch.nn.functional.cross_entropy(logits, target)
