"""Frozen records made quickly: a frozen, slotted dataclass -> the same class with a quicker __init__.

A frozen dataclass's own __init__ sets each field with object.__setattr__(self, name, value), which looks the
name up on the class for every field of every record; a cold check of 10,002 claims makes about a million
such fields (ClaimVerdict, Claim, intervals, findings), a twentieth of its time. quick_init gives the class an
__init__ that sets each slot through the slot's own descriptor: the same parameters, defaults and record
(frozen still: only __init__ sets a field); quick_replace is dataclasses.replace for such a record, without
replace's per-field checks. Imports nothing of the package, so any module may use it.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

Record = TypeVar("Record", bound=type)
Made = TypeVar("Made")
_FIELDS: dict[type, tuple[str, ...]] = {}  # each quick record's class -> its field names, in order


def quick_init(cls: Record) -> Record:
    """cls, a frozen slotted dataclass whose fields are all set by __init__ from arguments or plain defaults
    (no default factories, no keyword-only fields, no __post_init__), with the quicker __init__."""
    if not is_dataclass(cls) or not vars(cls)["__dataclass_params__"].frozen or "__slots__" not in vars(cls):
        raise TypeError(f"quick_init needs a frozen, slotted dataclass; {cls.__name__} is not one")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"quick_init: {cls.__name__} has a __post_init__")
    names: dict[str, object] = {}
    parameters, lines = [], []
    for found in fields(cls):
        if not found.init or found.kw_only or found.default_factory is not MISSING:
            raise TypeError(f"quick_init: {cls.__name__}.{found.name} is not a plain argument")
        names[f"_set_{found.name}"] = vars(cls)[found.name].__set__  # the slot's member descriptor
        if found.default is MISSING:
            parameters.append(found.name)
        else:
            names[f"_default_{found.name}"] = found.default  # the very default, as the dataclass holds it
            parameters.append(f"{found.name}=_default_{found.name}")
        lines.append(f"    _set_{found.name}(self, {found.name})\n")
    source = f"def __init__(self, {', '.join(parameters)}):\n{''.join(lines) or '    pass'}"
    exec(compile(source, f"<quick_init {cls.__qualname__}>", "exec"), names)  # our own text: field names only
    init: Any = names["__init__"]
    init.__qualname__, init.__module__ = f"{cls.__qualname__}.__init__", cls.__module__
    type.__setattr__(cls, "__init__", init)
    _FIELDS[cls] = tuple(found.name for found in fields(cls))
    return cls


def quick_replace(record: Made, **changes: object) -> Made:
    """dataclasses.replace for a record quick_init made (every field a plain argument, so none of replace's
    per-field checks applies): the record again, with the fields `changes` names set anew."""
    cls = type(record)
    names = _FIELDS[cls]
    given = {name: getattr(record, name) for name in names}
    given.update(changes)
    if len(given) != len(names):
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(changes.keys() - set(names)))}")
    return cls(**given)
