"""CUR401, CUR402, CUR403: spans, messages, capture modes, and the
look-alikes that stay silent (the annotated cases: tests/rules/CUR401 to CUR404)."""

from __future__ import annotations


import pytest

from cursedlint.rules.graph_capture import (
    CaptureWithoutWarmup,
    CudaThreadDuringCapture,
    PinnedLoaderDuringCapture,
    SyncInCapture,
)

from harness import lint

RULES = {"cur401": CudaThreadDuringCapture, "cur402": SyncInCapture,
         "cur403": PinnedLoaderDuringCapture, "cur404": CaptureWithoutWarmup}


# -- CUR401 ----------------------------------------------------------------------------------

POLLER = """
import threading
import torch

def poll(event, stop):
    while not stop.is_set():
        event.query()

def capture(model, x, event, stop):
    threading.Thread(target=poll, args=(event, stop), daemon=True).start()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g{mode}):
        y = model(x)
"""


def test_incident_shape_is_reported_at_the_graph_call_naming_thread_call_and_fixes():
    [finding] = lint(POLLER.format(mode=""), CudaThreadDuringCapture)
    assert (finding.line, finding.column, finding.span.end_column) == (12, 10, 29)
    message = finding.explained
    assert finding.message == ("the thread running poll() (started on line 10) is alive when "
                               "torch.cuda.graph begins a capture (global mode)")
    for part in ("reaches line 7, where `.query()` asks the GPU", "any thread",
                 'capture_error_mode="thread_local"', "join or stop the thread"):
        assert part in message


@pytest.mark.parametrize("mode", [', capture_error_mode="thread_local"',
                                  ', capture_error_mode="relaxed"', ", None, None, MODE"])
def test_query_thread_is_silent_unless_the_mode_is_global(mode):
    assert lint(POLLER.format(mode=mode), CudaThreadDuringCapture) == []


DRAINER = """
import threading
import torch

def drain():
    flush_metrics()

def flush_metrics():
    torch.cuda.synchronize()

def capture(model, x):
    worker = threading.Thread(target=drain)
    worker.start()
    g = torch.cuda.CUDAGraph()
    g.capture_begin(capture_error_mode="{mode}")
    y = model(x)
    g.capture_end()
"""


@pytest.mark.parametrize("mode", ["global", "thread_local", "relaxed"])
def test_device_synchronizing_thread_is_reported_in_every_mode(mode):
    [finding] = lint(DRAINER.format(mode=mode), CudaThreadDuringCapture)
    assert finding.line == 15
    for part in (f"({mode} mode)", "reaches line 9 through flush_metrics(), where "
                 "`torch.cuda.synchronize()` waits", "every mode, thread_local included",
                 "its own stream or event"):
        assert part in finding.explained


def test_joined_thread_is_silent_but_a_join_after_the_capture_is_not():
    joined = DRAINER.format(mode="global").replace("worker.start()",
                                                   "worker.start()\n    worker.join()")
    assert lint(joined, CudaThreadDuringCapture) == []
    late = DRAINER.format(mode="global") + "    worker.join()\n"
    assert [f.line for f in lint(late, CudaThreadDuringCapture)] == [15]


def test_cupy_capture_defaults_to_relaxed_so_only_device_synchronization_counts():
    code = """
    import threading
    import cupy as cp

    def poll(event):
        event.query()

    def drain():
        cp.cuda.Device().synchronize()

    def capture(stream, event, target):
        threading.Thread(target=target, args=(event,)).start()
        stream.begin_capture()
        stream.end_capture()
    """
    assert lint(code.replace("target=target", "target=poll"), CudaThreadDuringCapture) == []
    [finding] = lint(code.replace("target=target", "target=drain"), CudaThreadDuringCapture)
    assert "`cupy.cuda.Device().synchronize()` waits for the whole device" in finding.explained
    assert "(relaxed mode)" in finding.message


def test_cuda_python_mode_constant_is_read():
    code = """
    import threading
    from cuda import cudart

    def stage(buffer):
        buffer.pin_memory()

    def capture(stream, buffer):
        threading.Thread(target=stage, args=(buffer,)).start()
        cudart.cudaStreamBeginCapture(stream, cudart.cudaStreamCaptureMode.{mode})
        cudart.cudaStreamEndCapture(stream)
    """
    [finding] = lint(code.format(mode="cudaStreamCaptureModeGlobal"), CudaThreadDuringCapture)
    assert "cudaStreamBeginCapture() begins a capture (global mode)" in finding.message
    assert "pinned memory" in finding.explained
    assert lint(code.format(mode="cudaStreamCaptureModeThreadLocal"), CudaThreadDuringCapture) == []


# -- CUR402 ----------------------------------------------------------------------------------


def test_item_in_region_is_reported_at_the_call_with_why_and_fix():
    code = """
    import torch

    def capture(model, x):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, capture_error_mode="thread_local"):
            y = model(x)
            scale = y.max().item()
        return g, scale
    """
    [finding] = lint(code, SyncInCapture)
    assert (finding.line, finding.column, finding.span.end_column) == (8, 17, 31)
    message = finding.explained
    assert finding.message == "`.item()` copies a value to the host, in the capture begun on line 6"
    assert finding.help.startswith("torch.cuda.graph begins the capture on line 6.")
    for part in ("operation not permitted when stream is capturing", "whatever the capture "
                 "mode", "move it out of the region"):
        assert part in message


def test_helper_call_names_the_path_to_the_sync():
    code = """
    import torch

    def summarize(y):
        return describe(y)

    def describe(y):
        return y.tolist()

    def capture(model, x):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = model(x)
            summary = summarize(y)
    """
    [finding] = lint(code, SyncInCapture)
    assert finding.line == 14
    assert "summarize() through describe() reaches it at line 8: `.tolist()`" in finding.explained


def test_recursive_helpers_terminate():
    code = """
    import torch

    def walk(node):
        return [walk(child) for child in node.children]

    def capture(model, x):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            walk(model)
    """
    assert lint(code, SyncInCapture) == []


@pytest.mark.parametrize("code", [
    # begin and end on different graphs
    "import torch\na.capture_begin()\nx.item()\nb.capture_end()\n",
    # a function named graph that is not torch's
    "def graph(g):\n    return g\nwith graph(g):\n    x.item()\n",
    # the end call in another block
    "import torch\ng.capture_begin()\nif ok:\n    x.item()\n    g.capture_end()\n",
    # a method with arguments that shares a name with a sync
    "import torch\nwith torch.cuda.graph(g):\n    rows = table.query('select 1')\n",
])
def test_sync_silent(code):
    assert lint(code, SyncInCapture) == []


def test_printed_cuda_tensor_is_reported_at_the_print_naming_the_tensor():
    code = """
    import torch

    def capture(model, x):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            scores = model(x).cuda().softmax(dim=-1)
            print("scores", scores)
        return g
    """
    [finding] = lint(code, SyncInCapture)
    assert (finding.line, finding.column) == (8, 9)
    assert finding.message == ("`print()` formats the CUDA tensor `scores` (a synchronizing "
                               "copy to the host), in the capture begun on line 6")


FORMATTED_IN_REGION = """
import logging
import torch

def capture(model, x, weight, name):
    y = torch.relu(x)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        z = model(x)
        {line}
    return g
"""


@pytest.mark.parametrize("line", [
    'print(f"{x.double() @ weight}")',
    'logging.error("%s", torch.tanh(z)[0])',
    'print(str(torch.ones(3, device="cuda")))',
    'print("%r" % (z.to("cuda") * 2,))',
])
def test_formatting_a_known_cuda_tensor_is_reported(line):
    assert len(lint(FORMATTED_IN_REGION.format(line=line), SyncInCapture)) == 1


@pytest.mark.parametrize("line", [
    "print(z, x, name)",  # a model's output and parameters: not known to be CUDA tensors
    "print(y)",  # bound outside the region
    "print(torch.relu(z).shape, torch.relu(z).dtype, len(torch.relu(z)))",
    'print(f"{name}", "%s" % name, "{}".format(name), str(name))',
    "print(torch.zeros(3), torch.is_tensor(z))",  # a CPU factory, a host value
    "print(torch.relu(z).size(), torch.relu(z).to(torch.float16))",
    'z = z * 2; print(z)',  # bound twice
    'log = logging.getLogger("x"); log.info("%s", name)',
    'rows = table.log(torch.relu(z))',  # `.log()` of something that is not a logger
])
def test_formatting_look_alikes_are_silent(line):
    assert lint(FORMATTED_IN_REGION.format(line=line), SyncInCapture) == []


# -- CUR403 ----------------------------------------------------------------------------------


def test_loader_message_names_loader_iterator_and_fixes():
    code = """
    import torch
    from torch.utils.data import DataLoader

    def train(model, dataset, static_x):
        loader = DataLoader(dataset, num_workers=2, pin_memory=True)
        batches = iter(loader)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_y = model(static_x)
    """
    [finding] = lint(code, PinnedLoaderDuringCapture)
    assert (finding.line, finding.column) == (9, 10)
    for part in ("pinned DataLoader created on line 6", "iter() on line 7 holds it",
                 "pin-memory thread", "queries CUDA events",
                 "capture before the loader's iterator starts",
                 'capture_error_mode="thread_local"'):
        assert part in finding.explained


@pytest.mark.parametrize("settings", ["pin_memory=False, num_workers=4",
                                      "pin_memory=PIN, num_workers=4", "pin_memory=True"])
def test_loader_without_a_known_pinning_thread_is_silent(settings):
    code = f"""
    import torch
    from torch.utils.data import DataLoader

    def train(model, dataset, static_x):
        for x in DataLoader(dataset, {settings}):
            with torch.cuda.graph(g):
                static_y = model(static_x)
    """
    assert lint(code, PinnedLoaderDuringCapture) == []


def test_thread_started_and_joined_at_module_level_is_silent():
    code = POLLER.format(mode="").replace(
        "    threading.Thread(target=poll, args=(event, stop), daemon=True).start()\n", "")
    started = code + "worker = threading.Thread(target=poll, args=(EVENT, STOP))\nworker.start()\n"
    [finding] = lint(started, CudaThreadDuringCapture)
    assert "thread `worker` running poll() (started on line 14)" in finding.explained
    assert lint(started + "worker.join()\n", CudaThreadDuringCapture) == []


def test_a_task_inside_an_unrelated_with_block_is_still_alive():
    code = """
    import torch
    from concurrent.futures import ThreadPoolExecutor

    def stage(batch):
        return batch.cuda()

    def capture(model, x, batch):
        pool = ThreadPoolExecutor(1)
        with torch.no_grad():
            pool.submit(stage, batch)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = model(x)
    """
    [finding] = lint(code, CudaThreadDuringCapture)
    assert "the pool task running stage() (started on line 11)" in finding.explained


def test_masked_assignment_is_not_a_host_sync_but_masked_read_is():
    code = """
    import torch

    with torch.cuda.graph(g):
        y[y < 0] = 0
        kept = y[y > 1]
    """
    assert [f.line for f in lint(code, SyncInCapture)] == [6]


def test_module_level_script_with_an_iterator_before_capture():
    code = """
    import torch
    from torch.utils.data import DataLoader

    loader = DataLoader(DATASET, num_workers=4, pin_memory=True)
    batches = iter(loader)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = MODEL(next(batches))
    """
    assert [f.line for f in lint(code, PinnedLoaderDuringCapture)] == [8]


def test_c_finding_names_the_call_and_the_begin():
    code = """
    void step(cudaStream_t s, cudaGraph_t *g) {
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        cudaEventSynchronize(done);
        cudaStreamEndCapture(s, g);
    }
    """
    [finding] = lint(code, SyncInCapture, path="step.cu")
    assert (finding.line, finding.column, finding.span.end_column) == (4, 5, 31)
    assert finding.message.startswith("cudaEventSynchronize() is prohibited while a stream "
                                      "captures, in the capture begun on line 3")
    assert finding.help.startswith("cudaStreamBeginCapture() begins the capture on line 3.")


def test_c_thread_message_names_thread_start_call_and_fix():
    code = """
    void *drain(void *arg) {
        cuCtxSynchronize();
        return arg;
    }

    void capture(CUstream s, CUgraph *g) {
        pthread_t tid;
        pthread_create(&tid, NULL, drain, NULL);
        cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
        cuStreamEndCapture(s, g);
    }
    """
    [finding] = lint(code, CudaThreadDuringCapture, path="capture.cu")
    assert (finding.line, finding.column) == (10, 5)
    assert finding.message == ("thread `tid` running drain() (started on line 9) is alive when "
                               "cuStreamBeginCapture() begins a capture (thread_local mode)")
    assert finding.help.startswith("Its code reaches line 3, where it calls cuCtxSynchronize()")
    assert "every mode, thread_local included" in finding.explained


# -- CUR404 ----------------------------------------------------------------------------------

COLD_LAYER = """
import torch

def capture(static_x):
    layer = torch.nn.Linear(1024, 1024).cuda()
{warm_up}    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = layer(static_x)
    return g, static_y
"""


def test_cold_layer_is_a_warning_at_the_graph_call_naming_the_layer_and_fixes():
    [finding] = lint(COLD_LAYER.format(warm_up=""), CaptureWithoutWarmup)
    assert (finding.line, finding.column, finding.span.end_column) == (7, 10, 29)
    assert finding.severity.value == "warning"
    message = finding.explained
    assert finding.message == "torch.cuda.graph captures cuBLAS/cuDNN work not run before it: line 8"
    assert finding.help.startswith("There `layer` (created on line 5) runs a `Linear`, which "
                                   "calls cuBLAS or cuDNN")
    for part in ("CUBLAS_STATUS_NOT_INITIALIZED", "invalidated", "side stream",
                 "`with torch.cuda.stream(s):`", "make_graphed_callables"):
        assert part in message


@pytest.mark.parametrize("warm_up", [
    "    layer(static_x)\n",  # the same callable, on the current stream
    "    prime(layer, static_x)\n",  # handed to code that may run it
    "    with torch.cuda.stream(torch.cuda.Stream()):\n        train_step(static_x)\n",
    "    torch.mm(static_x, static_x.t())\n",  # any library work initializes cuBLAS
])
def test_warm_ups_silence_it(warm_up):
    assert lint(COLD_LAYER.format(warm_up=warm_up), CaptureWithoutWarmup) == []


def test_a_warm_up_after_the_region_or_of_other_elementwise_work_does_not_count():
    late = COLD_LAYER.format(warm_up="").replace("    return", "    layer(static_x)\n    return")
    elementwise = COLD_LAYER.format(warm_up="    torch.relu(static_x)\n")
    assert [f.line for f in lint(late, CaptureWithoutWarmup)] == [7]
    assert [f.line for f in lint(elementwise, CaptureWithoutWarmup)] == [8]


def test_module_class_forward_is_followed_and_named():
    code = """
    import torch
    from torch import nn

    class Mixer(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(width))

        def forward(self, x):
            return mix(x * self.scale)

    def mix(x):
        return x @ x.transpose(-2, -1)

    def capture(static_x):
        mixer = Mixer(64).cuda()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_y = mixer(static_x)
    """
    [finding] = lint(code, CaptureWithoutWarmup)
    assert finding.line == 19
    assert finding.message.endswith("line 20")
    assert finding.help.startswith("There `mixer` (created on line 17) runs forward() through "
                                   "mix(), which reaches line 14: `@` is a cuBLAS matrix product")


def test_warm_up_through_a_module_helper_counts():
    code = """
    import torch

    def prime(x, w):
        return torch.matmul(x, w)

    def capture(x, w):
        prime(x, w)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = x.matmul(w)
    """
    assert lint(code, CaptureWithoutWarmup) == []
    assert [f.line for f in lint(code.replace("        prime(x, w)\n", ""),
                                 CaptureWithoutWarmup)] == [9]


@pytest.mark.parametrize("code", [
    # a method of the class that shares a name with a tensor method
    "import torch\nclass A:\n    def f(self, x):\n        with torch.cuda.graph(self.g):\n"
    "            self.mm(x)\n",
    # a module that builds itself recursively
    "import torch\nclass Tree:\n    def __init__(self):\n        self.child = Tree()\n"
    "    def forward(self, x):\n        return self.child(x)\n"
    "with torch.cuda.graph(G):\n    Y = Tree()(X)\n",
    # a layer that is not a cuBLAS or cuDNN call
    "import torch\nnorm = torch.nn.LayerNorm(8).cuda()\n"
    "with torch.cuda.graph(G):\n    Y = norm(X)\n",
    # an nn.Linear rebound before the region: which one is unknown
    "import torch\nlayer = torch.nn.Linear(8, 8)\nlayer = wrap(layer)\n"
    "with torch.cuda.graph(G):\n    Y = layer(X)\n",
])
def test_warmup_silent(code):
    assert lint(code, CaptureWithoutWarmup) == []


# -- a capture source in a lambda ----------------------------------------------------------


def lint_all_rules(code: str) -> list[tuple[str, int]]:
    """(code, line) of every CUR4xx finding, internal errors (CUR000) included."""
    return sorted((f.code, f.line) for f in lint(code, RULES.values()))


LAMBDA_MODULE = """
import threading
import torch
from torch.utils.data import DataLoader

def poll(event):
    while True:
        event.query()

threading.Thread(target=poll, args=(EVENT,), daemon=True).start()
loader = DataLoader(DATASET, num_workers=4, pin_memory=True)
for batch in loader:
    {capture}
"""
"""A polling thread alive and a pinned loader iterated where the capture source (line 13)
is written."""


@pytest.mark.parametrize("capture, findings", [
    # calling the lambda captures, while the module's thread runs: the def form's finding
    ("graphed = lambda m, x: torch.cuda.make_graphed_callables(m, (x,))", [("CUR401", 13)]),
    ("def graphed(m, x): return torch.cuda.make_graphed_callables(m, (x,))",
     [("CUR401", 13)]),
    # the lambda's one expression starts a thread of its own before the capture
    ("graphed = lambda m, x: (threading.Thread(target=poll, args=(x,)).start(), "
     "torch.cuda.make_graphed_callables(m, (x,)))", [("CUR401", 13), ("CUR401", 13)]),
    # run in the loop, not only defined there: the loader's iterator is alive too
    ("graphed = [torch.cuda.make_graphed_callables(m, (batch,)) for m in MODELS]",
     [("CUR401", 13), ("CUR403", 13)]),
    ("graphed = (lambda: torch.cuda.make_graphed_callables(MODEL, (batch,))) and None",
     [("CUR401", 13)]),
    # only builds the context manager: a capture begins where a `with` enters it
    ("graph_of = lambda g: torch.cuda.graph(g)", []),
    ("def graph_of(g): return torch.cuda.graph(g)", []),
    # half a region: a lambda holds no block in which capture_end() could follow
    ("begin = lambda g: g.capture_begin()", []),
    ("def begin(g): g.capture_begin()", []),
    ("begin = lambda s: s.begin_capture() or cudart.cudaStreamBeginCapture(s, 0)", []),
    # a region is the statements of one block; an expression sequence is not read as one
    ("step = lambda g, y: (g.capture_begin(), y.item(), g.capture_end())", []),
    ("step = lambda g, y: [g.capture_begin() for _ in y]", []),
])
def test_capture_sources_in_lambdas_follow_their_def_forms(capture, findings):
    assert lint_all_rules(LAMBDA_MODULE.format(capture=capture)) == findings


def test_lambda_capture_in_a_method_sees_threads_of_the_class_init():
    code = """
    import threading
    import torch

    def poll(event):
        event.query()

    class Runner:
        def __init__(self, event):
            self.poller = threading.Thread(target=poll, args=(event,))
            self.poller.start()

        def graphed(self, model, x):
            return (lambda: torch.cuda.make_graphed_callables(model, (x,)))()
    """
    assert lint_all_rules(code) == [("CUR401", 14)]
    joined = code.replace("self.poller.start()", "self.poller.start()\n"
                          "            self.poller.join()")
    assert lint_all_rules(joined) == []


# -- the second prefilter look -----------------------------------------------------------------

@pytest.mark.parametrize("code, parsed", [
    ("import torch\ntorch._dynamo.allow_in_graph(f)\nx.cuda()\n", False),
    ("import torch\n# torch.cuda.graph(g) is used\ntorch.cuda.synchronize()\n", False),
    # a call in a string is read as code (which can only add files to parse)
    ("import torch\nlog('torch.cuda.graph(g) is used')\ntorch.cuda.synchronize()\n", True),
    ("import torch\nwith torch.cuda.graph (g):\n    y = x.cuda()\n", True),
    ("from torch.cuda import graph  as  capture\nwith capture(g):\n    pass\n", True),
    ("import torch\ng.capture_begin()\n", True),
    ("import torch\nprint(f'{torch.cuda.graph(g)}')\n", True),
    # a graph( call on an object, and a project's own CudaGraphModule: no region of torch's
    ("import torch\nwith self.graph(g):\n    y = x.cuda()\n", False),
    ("import torch\nfrom .cuda_graphs import CudaGraphModule\nlayer = CudaGraphModule(f)\n", False),
    ("import torch.cuda as tc\nwith tc.graph(g):\n    pass\n", True),
    ("from torch.cuda import graphs\nwith graphs.graph(g):\n    pass\n", True),
    ("from tensordict.nn import CudaGraphModule\npolicy = CudaGraphModule(f)\n", True),
])
def test_python_files_without_a_region_source_are_not_parsed(code, parsed):
    from cursedlint.rules.graph_capture import CudaThreadDuringCapture

    assert CudaThreadDuringCapture.may_fire(code.encode(), {}, (3, 12), "python") is parsed
    assert CudaThreadDuringCapture.may_fire(code.encode(), {}, (3, 12), "cpp")


@pytest.mark.parametrize("mode, reported", [
    ("cudaStreamCaptureModeRelaxed", [9]),
    ("cudaStreamCaptureModeThreadLocal", [6, 7, 9]),
])
def test_python_cuda_allocation_is_legal_only_in_relaxed_captures(mode, reported):
    code = f"""
    from cuda import cudart

    def record(stream, nbytes):
        cudart.cudaStreamBeginCapture(stream, cudart.cudaStreamCaptureMode.{mode})
        err, scratch = cudart.cudaMalloc(nbytes)
        cudart.cudaFree(scratch)
        launch_scale(stream, scratch)
        cudart.cudaStreamSynchronize(stream)
        err, graph = cudart.cudaStreamEndCapture(stream)
        return graph
    """
    findings = lint(code, SyncInCapture)
    assert [f.line for f in findings] == reported
    allocation = [f for f in findings if f.line in (6, 7)]
    assert all("a relaxed one allows it" in f.explained for f in allocation)
    assert all("whatever the capture mode" in f.explained for f in findings if f.line == 9)
