"""frozen.quick_init: a frozen, slotted record's quicker __init__ makes the record the dataclass's own would, with
the same parameters and defaults, and the record stays frozen; a class it cannot make so is refused."""

import dataclasses
import inspect

import pytest

from generator import records
from generator.frozen import quick_init, quick_replace
from generator.judging import checks, evidence, intervals, replicates
from generator.lang import stats

DEFAULT = ("a shared default",)


@dataclasses.dataclass(frozen=True, slots=True)
class Plain:
    first: int
    second: str = "two"
    third: tuple = DEFAULT
    fourth: float | None = None


@quick_init
@dataclasses.dataclass(frozen=True, slots=True)
class Quick:
    first: int
    second: str = "two"
    third: tuple = DEFAULT
    fourth: float | None = None


@pytest.mark.parametrize(
    "args, kwargs",
    [((1,), {}), ((1, "b"), {}), ((1, "b", (3,), 4.0), {}), ((1,), {"fourth": 4.0}), ((), {"first": 1, "third": ()})],
)
def test_a_quick_record_is_the_dataclasss_own(args, kwargs):
    quick, plain = Quick(*args, **kwargs), Plain(*args, **kwargs)
    assert dataclasses.astuple(quick) == dataclasses.astuple(plain)
    assert repr(quick) == repr(plain).replace("Plain", "Quick")
    assert quick == Quick(*args, **kwargs) and hash(quick) == hash(Quick(*args, **kwargs))
    assert Quick(1).third is DEFAULT  # the very default, as the dataclass's own __init__ gives it


def test_a_quick_record_stays_frozen_and_takes_no_stray_argument():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Quick(1).first = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Quick(1, nothing=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]


def _not_frozen():
    @dataclasses.dataclass(slots=True)
    class Loose:
        first: int

    quick_init(Loose)


def _not_slotted():
    @dataclasses.dataclass(frozen=True)
    class Open:
        first: int

    quick_init(Open)


def _with_factory():
    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Made:
        first: list = dataclasses.field(default_factory=list)


def _keyword_only():
    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Named:
        first: int


def _post_init():
    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class After:
        first: int

        def __post_init__(self) -> None:
            pass


@pytest.mark.parametrize("make", [_not_frozen, _not_slotted, _with_factory, _keyword_only, _post_init])
def test_a_record_quick_init_cannot_make_alike_is_refused(make):
    with pytest.raises(TypeError, match="quick_init"):
        make()


def _quick(cls: object) -> bool:
    code = getattr(getattr(cls, "__init__", None), "__code__", None)
    return isinstance(cls, type) and code is not None and code.co_filename.startswith("<quick_init")


QUICK = [
    cls
    for module in (records, intervals, replicates, evidence, checks, stats)
    for cls in vars(module).values()
    if _quick(cls) and cls.__module__ == module.__name__
]


@pytest.mark.parametrize("cls", QUICK, ids=lambda cls: cls.__name__)
def test_each_quick_record_of_the_gate_takes_its_fields_with_their_defaults(cls):
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [(p.name, p.default) for p in parameters] == [
        (f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(cls)
    ]


def test_the_gates_hot_records_are_quick():
    assert {cls.__name__ for cls in QUICK} >= {"Claim", "ClaimVerdict", "ClaimInterval", "Finding", "Found", "Member"}


@pytest.mark.parametrize("changes", [{}, {"first": 2}, {"second": "b", "fourth": 1.5}, {"third": ()}])
def test_quick_replace_is_dataclasses_replace(changes):
    assert quick_replace(Quick(1, "a"), **changes) == dataclasses.replace(Quick(1, "a"), **changes)


def test_quick_replace_refuses_a_field_the_record_lacks():
    with pytest.raises(TypeError, match="fifth"):
        quick_replace(Quick(1), fifth=5)
