"""Foreign functions of a library whose C source the project does not hold: the documented
default (`unknown-foreign-functions = "keep"`) takes a callback handed to one as kept, unless
its name says it only calls it before returning (a visit, an iteration, a sort)."""

import ctypes

scan = ctypes.CDLL("libscan.so.2")
VISIT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
ORDER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
NOTIFY = ctypes.CFUNCTYPE(None, ctypes.c_char_p)


def print_node(node, depth):
    print("  " * depth, node)
    return 0


def by_offset(left, right):
    return 0


def dump(tree):
    scan.scan_visit_children(tree, VISIT(print_node))  # ok: CUR202 (visited before it returns)
    scan.scan_foreach_leaf(tree, VISIT(print_node))  # ok: CUR202 (an iteration)
    scan.scan_sort_nodes(tree, ORDER(by_offset))  # ok: CUR202 (a sort's comparator)


def follow(path, on_change):
    notifier = NOTIFY(on_change)
    scan.scan_follow(path.encode(), notifier)  # error: CUR202@37


NOTIFIERS = {}


def follow_kept(path, on_change):
    NOTIFIERS[path] = notifier = NOTIFY(on_change)  # ok: CUR202 (held by a module-level dict)
    scan.scan_follow(path.encode(), notifier)
