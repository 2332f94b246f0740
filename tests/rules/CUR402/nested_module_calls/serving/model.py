"""Models stacking the blocks: in a list, under an attribute, in a dict, in a sequence."""

from torch import nn

from serving.attention import ClampedNorm
from serving.blocks import CheckedBlock, DecoderBlock, GuardedBlock, HostScaledBlock, PrefillBlock


class Decoder(nn.Module):
    def __init__(self, depth, heads):
        super().__init__()
        self.layers = nn.ModuleList([DecoderBlock(heads) for _ in range(depth)])

    def forward(self, x, lengths):
        for layer in self.layers:
            x = layer(x, lengths)
        return x


class Tower(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.block = DecoderBlock(heads)
        self.out = nn.Linear(64, 64)

    def forward(self, x, lengths):
        return self.out(self.block(x, lengths))


class MultiHead(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = nn.ModuleDict({"left": DecoderBlock(heads), "right": DecoderBlock(heads)})

    def forward(self, x, lengths):
        for head in self.heads.values():
            x = head(x, lengths)
        return x


class Pipeline(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = nn.Sequential(nn.Linear(64, 64), ClampedNorm())

    def forward(self, x):
        return self.stages(x)


class SafeDecoder(nn.Module):
    """The same structure, with blocks that keep their host reads out of captures."""

    def __init__(self, depth, heads):
        super().__init__()
        self.layers = nn.ModuleList([GuardedBlock(heads) for _ in range(depth)])
        self.checked = nn.ModuleList([CheckedBlock(heads) for _ in range(depth)])
        self.scaled = HostScaledBlock(heads)
        self.prefilled = PrefillBlock(heads)

    def forward(self, x, lengths):
        for layer in self.layers:
            x = layer(x, lengths)
        for i, layer in enumerate(self.checked):
            x = layer(x, lengths)
        x = self.scaled(x, lengths)
        return self.prefilled(x, lengths)

    def prefill(self, x, lengths):
        return self.prefilled.prefill(x, lengths)
