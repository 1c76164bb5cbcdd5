"""Which class of a family a preset needs: ``CausalLM.from_preset(p)`` gives ``GPT2CausalLM`` for a GPT-2 preset.

cls = matching_subclass(CausalLM, GPT2Backbone, "my_preset")   # the task class built on that backbone
tasks = task_kinds(GPT2Backbone, tfkit.Model)                 # ["CausalLM"]: what metadata.json lists
"""

from __future__ import annotations

from tfkit.base import registry


def all_subclasses(cls: type) -> list[type]:
    """Every public subclass of ``cls`` (its own included), each once: not the functional variants tfkit makes of a
    ``Model`` subclass built the functional way (``registry.public_class`` names the class they stand for)."""
    found, stack = [], [cls]
    while stack:
        current = stack.pop()
        if current not in found and registry.public_class(current) is current:
            found.append(current)
        stack.extend(sub for sub in current.__subclasses__() if sub not in found)
    return found


def matching_subclass(cls: type, backbone_cls: type, preset: str) -> type:
    """The subclass of ``cls`` whose ``backbone_cls`` is ``backbone_cls``; ``ValueError`` naming the preset if none.

    Where several classes use that backbone and one is a base class of all the others (a family's class and a
    user's subclass of it, say with its own ``train_step``), the base class: KerasHub refuses the preset then."""
    if getattr(cls, "backbone_cls", None) is backbone_cls:
        return cls
    matches = [sub for sub in all_subclasses(cls) if getattr(sub, "backbone_cls", None) is backbone_cls]
    if not matches:
        raise ValueError(
            f"preset {preset} is a {backbone_cls.__name__}; tfkit.hub has no {cls.__name__} for it "
            f"(the {cls.__name__} classes: {sorted(s.__name__ for s in all_subclasses(cls) if s is not cls)})"
        )
    bases = [m for m in matches if all(issubclass(other, m) for other in matches)]
    if len(matches) > 1 and bases:  # a family's class and subclasses of it (a user's own train_step): the family's
        return bases[0]
    if len(matches) > 1:
        raise ValueError(
            f"preset {preset}: several {cls.__name__} classes use {backbone_cls.__name__} "
            f"({[m.__name__ for m in matches]}); call from_preset on the one you want"
        )
    return matches[0]


def task_kinds(backbone_cls: type, model_base: type) -> list[str]:
    """The task kinds (``CausalLM``, ``TextClassifier``: the base of each task class built on ``backbone_cls``),
    among the subclasses of ``model_base``, as KerasHub lists them in ``metadata.json``. A base tfkit adds that
    KerasHub lacks (``DecoderCausalLM``, registered under no name) is passed over for its own base."""
    kinds = set()
    for sub in all_subclasses(model_base):
        inherited = any(getattr(base, "backbone_cls", None) is backbone_cls for base in sub.__bases__)
        if getattr(sub, "backbone_cls", None) is backbone_cls and not inherited:  # a family's task, not a subclass
            kind = sub.__base__
            while registry.registered_name(kind) is None and kind.__base__ is not object:
                kind = kind.__base__
            kinds.add(kind.__name__)
    return sorted(kinds)
