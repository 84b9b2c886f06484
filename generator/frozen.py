"""Frozen records made quickly: a frozen, slotted dataclass -> the same class with a quicker __init__.

A frozen dataclass's own __init__ sets each field with object.__setattr__(self, name, value), which looks the
name up on the class for every field of every record; a cold check of 10,002 claims makes about a million
such fields (ClaimVerdict, Claim, intervals, findings), a twentieth of its time. quick_init gives the class an
__init__ that sets each slot through the slot's own descriptor: the same parameters, defaults and record
(frozen still: only __init__ sets a field); quick_replace is dataclasses.replace for such a record, without
replace's per-field checks. Imports nothing of the package, so any module may use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

Record = TypeVar("Record", bound=type)
Made = TypeVar("Made")
_REPLACE: dict[type, Callable[..., Any]] = {}  # each quick record's class -> its replace
_KEEP = object()  # a field quick_replace is not given: kept as it is


def quick_init(cls: Record) -> Record:
    """cls, a frozen slotted dataclass whose fields are all set by __init__ from arguments or plain defaults
    (no default factories, no keyword-only fields, no __post_init__), with the quicker __init__."""
    if not is_dataclass(cls) or not vars(cls)["__dataclass_params__"].frozen or "__slots__" not in vars(cls):
        raise TypeError(f"quick_init needs a frozen, slotted dataclass; {cls.__name__} is not one")
    if hasattr(cls, "__post_init__") or not fields(cls):
        raise TypeError(f"quick_init: {cls.__name__} has a __post_init__, or no fields")
    names: dict[str, object] = {"_new": object.__new__, "_cls": cls, "_KEEP": _KEEP}
    parameters, keywords, sets, keeps = [], [], [], []
    for found in fields(cls):
        name = found.name
        if not found.init or found.kw_only or found.default_factory is not MISSING:
            raise TypeError(f"quick_init: {cls.__name__}.{name} is not a plain argument")
        if name.startswith("_") or name in ("self", "new"):  # the names the made functions use
            raise TypeError(f"quick_init: {cls.__name__}.{name} is a name quick_init keeps for itself")
        names[f"_set_{name}"] = vars(cls)[name].__set__  # the slot's member descriptor
        if found.default is MISSING:
            parameters.append(name)
        else:
            names[f"_default_{name}"] = found.default  # the very default, as the dataclass holds it
            parameters.append(f"{name}=_default_{name}")
        keywords.append(f"{name}=_KEEP")
        sets.append(f"    _set_{name}(self, {name})\n")
        keeps.append(f"    _set_{name}(new, self.{name} if {name} is _KEEP else {name})\n")
    source = (
        f"def __init__(self, {', '.join(parameters)}):\n{''.join(sets) or '    pass'}\n"
        f"def replace(self, *, {', '.join(keywords)}):\n"
        f"    new = _new(_cls)\n{''.join(keeps)}    return new\n"
    )
    exec(compile(source, f"<quick_init {cls.__qualname__}>", "exec"), names)  # our own text: field names only
    init: Any = names["__init__"]
    replace: Any = names["replace"]
    init.__qualname__, init.__module__ = f"{cls.__qualname__}.__init__", cls.__module__
    type.__setattr__(cls, "__init__", init)
    _REPLACE[cls] = replace
    return cls


def quick_replace(record: Made, **changes: object) -> Made:
    """dataclasses.replace for a record quick_init made (every field a plain argument, so none of replace's
    per-field checks applies): the record again, with the fields `changes` names set anew."""
    return _REPLACE[type(record)](record, **changes)
