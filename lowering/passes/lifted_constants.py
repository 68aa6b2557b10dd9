"""A tensor constant created inside ``forward`` and read by several nodes gets one placeholder per
reader, each under a name of its own.

``torch.tensor(mid - 1)`` in a model's ``forward`` (DeBERTa-v2's and SEW-D's log buckets) is
exported as a lifted tensor constant. When its readers land in several partitions, ExecuTorch
gives each reader after the first a copy of the placeholder under the *same* target; a partition
holding two such copies cannot be rebuilt into a module by ``to_executorch`` (torch's unlifting
looks the shared target up as a buffer: "`lifted_tensor_0` is not a buffer"). With one
placeholder per reader, each under its own target, nothing is shared and nothing is copied.
Small constants only (these are literals, not weights): their copies cost nothing.
"""

from __future__ import annotations

import copy

from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, InputSpec, TensorArgument

# Larger constants are weights or tables: one shared placeholder, as exported.
MAX_COPIED_ELEMENTS = 4096


def split_shared_lifted_constants(program: ExportedProgram) -> int:
    """Gives each reader of a shared small lifted tensor constant its own placeholder (in place);
    returns the number of placeholders added."""
    graph = program.graph_module.graph
    signature = program.graph_signature
    specs = {spec.arg.name: spec for spec in signature.input_specs if isinstance(spec.arg, TensorArgument)}
    added = 0
    new_specs: dict[str, list[InputSpec]] = {}
    for node in list(graph.nodes):
        spec = specs.get(node.name) if node.op == "placeholder" else None
        if spec is None or spec.kind != InputKind.CONSTANT_TENSOR or len(node.users) < 2:
            continue
        value = program.constants.get(spec.target)
        if value is None or value.numel() > MAX_COPIED_ELEMENTS:
            continue
        for i, reader in enumerate(list(node.users)[1:]):
            name, target = f"{node.name}_reader_{i}", f"{spec.target}_reader_{i}"
            with graph.inserting_before(node):
                copy_node = graph.placeholder(name)
            copy_node.meta.update(node.meta)
            reader.replace_input_with(node, copy_node)
            program.constants[target] = copy.deepcopy(value)
            new_specs.setdefault(node.name, []).append(
                InputSpec(kind=InputKind.CONSTANT_TENSOR, arg=TensorArgument(name=copy_node.name), target=target))
            added += 1
    if added:
        # Placeholders and input specs must stay in the same order: each copy sits before its original.
        ordered = []
        for spec in signature.input_specs:
            name = spec.arg.name if isinstance(spec.arg, TensorArgument) else None
            ordered.extend(new_specs.get(name, []))
            ordered.append(spec)
        signature.input_specs[:] = ordered
        graph.lint()
        program.graph_module.recompile()
    return added
