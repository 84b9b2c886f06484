"""The gate's hot records, attrs frozen classes: each takes its fields with their very defaults, stays frozen,
keeps no room beyond its fields (no __dict__, no __weakref__: 100,002 claims in a third of the memory), and
shows, compares, orders and hashes as the frozen dataclass with the same fields; attrs.evolve is that
dataclass's replace."""

import dataclasses
import inspect

import attrs
import pytest

from generator import records
from generator.claims import lineage
from generator.judging import checks, evidence, intervals, replicates
from generator.lang import stats, values

RECORDS = [
    cls
    for module in (records, intervals, replicates, evidence, checks, stats, values, lineage)
    for cls in vars(module).values()
    if isinstance(cls, type) and attrs.has(cls) and cls.__module__ == module.__name__
]


def _made(cls: type, **changes: object) -> object:
    """A record of cls: each field without a default given a value of its own, its defaults kept."""
    return cls(**{**_given(cls), **changes})


def _given(cls: type) -> dict[str, object]:
    return {f.name: f"<{f.name}>" for f in attrs.fields(cls) if f.default is attrs.NOTHING}


def _as_dataclass(cls: type) -> type:
    """The frozen, slotted dataclass with cls's fields and defaults, ordered where cls is."""
    spec = [
        (f.name, f.type) if f.default is attrs.NOTHING else (f.name, f.type, dataclasses.field(default=f.default))
        for f in attrs.fields(cls)
    ]
    ordered = "__lt__" in vars(cls)
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=True, slots=True, order=ordered)


def test_the_gates_hot_records_are_attrs_records():
    names = {cls.__name__ for cls in RECORDS}
    assert names >= {"Claim", "ClaimVerdict", "ClaimInterval", "Finding", "Found", "Member", "Source", "Edge"}


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_each_record_takes_its_fields_with_their_very_defaults(cls):
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [(p.name, p.kind) for p in parameters] == [
        (f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for f in attrs.fields(cls)
    ]
    record = _made(cls)
    for f in attrs.fields(cls):
        if f.default is not attrs.NOTHING:
            assert getattr(record, f.name) is f.default  # the very default, never a copy (no factories)
    if any(f.default is attrs.NOTHING for f in attrs.fields(cls)):
        with pytest.raises(TypeError):
            cls()  # a field without a default must be given


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_each_record_is_frozen_and_holds_its_fields_alone(cls):
    record, first = _made(cls), attrs.fields(cls)[0].name
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(record, first, "changed")
    assert getattr(record, first) != "changed"
    assert cls.__slots__ == tuple(f.name for f in attrs.fields(cls))  # weakref_slot=False: no room beyond them
    assert not hasattr(record, "__dict__")


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_each_record_shows_compares_and_hashes_as_its_frozen_dataclass(cls):
    record, twin = _made(cls), _as_dataclass(cls)(**_given(cls))
    assert repr(record) == repr(twin) and attrs.astuple(record, recurse=False) == dataclasses.astuple(twin)
    assert record == _made(cls) and hash(record) == hash(_made(cls))
    first = attrs.fields(cls)[0].name
    assert record != _made(cls, **{first: "<other>"})
    if "__lt__" in vars(cls):  # ordered as the dataclass's tuple of fields
        low, high = (_made(cls, **{first: name}) for name in ("a", "b"))
        assert low < high and sorted([high, low]) == [low, high]


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_evolve_is_the_dataclass_replace(cls):
    record, last = _made(cls), attrs.fields(cls)[-1].name
    evolved = attrs.evolve(record, **{last: "<new>"})
    assert evolved == _made(cls, **{last: "<new>"}) and getattr(record, last) != "<new>"
    twin = _as_dataclass(cls)(**_given(cls))
    assert repr(evolved) == repr(dataclasses.replace(twin, **{last: "<new>"}))
    with pytest.raises(TypeError, match="no_such_field"):
        attrs.evolve(record, no_such_field=1)


@pytest.mark.parametrize("field", [f.name for f in attrs.fields(records.ClaimVerdict)])
def test_a_completed_verdict_is_the_evolved_one(field):
    """ClaimVerdict.completed, the series and evidence stages' fast evolve: the same record as attrs.evolve, for
    whichever field it completes (one at a time, and with the first field beside it), the old one left as it was."""
    verdict = _made(records.ClaimVerdict)
    first = attrs.fields(records.ClaimVerdict)[0].name
    assert verdict.completed(**{field: "<new>"}) == attrs.evolve(verdict, **{field: "<new>"})
    both = {first: "<first>", field: "<new>"}
    assert verdict.completed(**both) == attrs.evolve(verdict, **both) != verdict
    assert verdict == _made(records.ClaimVerdict)
    with pytest.raises(KeyError, match="no_such_field"):
        verdict.completed(no_such_field=1)
