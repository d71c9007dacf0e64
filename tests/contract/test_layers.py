"""The import contract (see ``_imports.py``): the real tree keeps it, and every rule can fail."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from . import _imports
from ._imports import Import, cycles, parse_imports, read_tree, violations

REPO = Path(__file__).resolve().parents[2]


def test_the_tree_keeps_the_import_contract() -> None:
    found = violations(read_tree(REPO))
    assert not found, "forbidden imports:\n" + "\n".join(found)


def test_the_module_level_import_graph_has_no_cycle() -> None:
    found = cycles(read_tree(REPO))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_seam_has_no_import_circle_even_through_a_lazy_import() -> None:
    """Issue 49: the fetch path (``_compat/fetch/``) had ``records`` <-> ``fetch`` through a lazy
    import in ``make_fetcher``; the seam counts lazy imports as arrows and has no circle."""
    seam = {
        name: imports
        for name, imports in read_tree(REPO).items()
        if name == "staticconsumer._compat" or name.startswith("staticconsumer._compat.")
    }
    assert "staticconsumer._compat.fetch.choose" in seam
    found = cycles(seam, lazy=True)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_cli_and_the_report_do_not_import_each_other_both_ways() -> None:
    """Issue 49: the command line imports the Spark report (``cli/report.py``, its public
    names); the report never imports the command line, lazily or not."""
    tree = read_tree(REPO)
    back = [str(i) for name, imports in tree.items() if name.startswith("staticconsumer.analytics")
            for i in imports if i.target.startswith("staticconsumer.cli")]  # fmt: skip
    assert back == []
    forth = [i.target for i in tree["staticconsumer.cli.report"]]
    assert any(t.startswith("staticconsumer.analytics") for t in forth)


def test_import_staticconsumer_loads_no_tooling_package() -> None:
    code = textwrap.dedent(f"""
        import sys
        import staticconsumer, staticconsumer.admin, staticconsumer.errors, staticconsumer.events
        import staticconsumer.membership, staticconsumer.protocol, staticconsumer.security
        tooling = {_imports.TOOLING!r}
        print(sorted(m for m in sys.modules if any(m == t or m.startswith(t + ".")
                                                   for t in tooling)))
    """)  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_launchers_old_error_names_still_import_and_are_the_same_classes() -> None:
    from staticconsumer import errors, localkafka
    from staticconsumer.errors import BrokerStartError, LocalKafkaError  # the old path

    assert LocalKafkaError is localkafka.LocalKafkaError
    assert BrokerStartError is localkafka.BrokerStartError
    assert errors.NoBrokerAvailableError is localkafka.NoBrokerAvailableError
    assert errors.KafkaResolutionError is localkafka.KafkaResolutionError
    with pytest.raises(AttributeError):
        _ = errors.NoSuchError


@pytest.mark.parametrize(
    "module", ["staticconsumer.admin", "staticconsumer.localkafka", "staticconsumer.roster"]
)
def test_public_names_are_sorted_and_resolve(module: str) -> None:
    import importlib

    face = importlib.import_module(module)
    names = face.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert getattr(face, name) is not None, name


# --- every rule can fail: synthetic modules ----------------------------------------------------

KNOWN = {
    "staticconsumer", "staticconsumer._retry", "staticconsumer.drivers",
    "staticconsumer.drivers.classic", "staticconsumer.localkafka",
    "staticconsumer.localkafka._probe",
    "staticconsumer.protocol", "staticconsumer.protocol.group", "staticconsumer.membership",
    "staticconsumer.membership._classic", "assignors", "assignors._range",
    "staticconsumer.roster", "staticconsumer.roster._record", "staticconsumer.roster._plan",
    "staticconsumer.roster._barrier", "staticconsumer.roster._reader",
}  # fmt: skip


def _flagged(module: str, source: str, *, is_package: bool = False) -> list[str]:
    imports = parse_imports(textwrap.dedent(source), module, is_package=is_package, known=KNOWN)
    return violations({module: imports})


@pytest.mark.parametrize(
    ("module", "source", "rule"),
    [
        ("staticconsumer.protocol.group", "from ..admin import describe_group", "protocol"),
        ("staticconsumer.protocol.group", "import asyncio\nimport aiokafka.conn\n", "protocol"),
        # The wire is ours (issue 42): not even aiokafka's types.
        ("staticconsumer.protocol.group", "from aiokafka.protocol.types import Int32", "protocol"),
        ("staticconsumer.localkafka._acls", "from .._compat.consumer import start_consumer",
         "SDK private"),
        ("staticconsumer.protocol.group", "from staticconsumer import StaticConsumer", "protocol"),
        ("assignors._range", "from staticconsumer.errors import ProtocolError", "pure"),
        ("assignors._range", "from aiokafka.structs import TopicPartition", "pure"),
        ("staticconsumer.membership._classic", "import asyncio", "sans-IO"),
        ("staticconsumer.membership._classic", "from aiokafka import errors", "sans-IO"),
        ("staticconsumer.membership._classic", "from ..drivers import classic", "sans-IO"),
        ("staticconsumer.membership._classic", "from .._compat import kafka_tp", "sans-IO"),
        ("staticconsumer.drivers.classic",
         "def later():\n    from ..localkafka import create_topic\n", "SDK module imports"),
        ("staticconsumer.errors", "from .testing import pytest_plugin", "SDK module imports"),
        ("staticconsumer.localkafka._cluster", "from .. import _retry", "SDK private"),
        ("staticconsumer.localkafka._cluster", "from ..drivers.classic import X", "SDK private"),
        ("staticconsumer.cli.render",
         "from ..admin import _raise_for_failures", "SDK private"),  # a private name
        ("staticconsumer.cli.render", "from ..membership._reasons import R", "SDK private"),
        ("staticconsumer._demo._report",
         "from ..localkafka._probe import create_topic", "another tooling package"),
        ("staticconsumer.drivers.classic", "from ..membership._plan import user_data_for",
         "membership package"),
        ("staticconsumer.roster._store", "from ..membership._plan import encode_assignments",
         "membership package"),
        ("staticconsumer._compat.wire", "from ..protocol._wire import request_header",
         "protocol package"),
        ("staticconsumer._compat.fetch.frames", "from ...protocol import _wire",
         "protocol package"),
        ("staticconsumer.roster._plan", "import asyncio", "sans-IO"),
        ("staticconsumer.roster._record", "from aiokafka import TopicPartition", "sans-IO"),
        ("staticconsumer.roster._barrier", "from .._compat.roster import PartitionLog",
         "sans-IO"),
        ("staticconsumer.roster._barrier", "from ._reader import RosterReader", "sans-IO"),
        ("staticconsumer.roster._plan", "from . import Roster", "sans-IO"),
        ("staticconsumer.roster._plan", "from ..drivers import classic", "sans-IO"),
    ],
)  # fmt: skip
def test_each_rule_flags_a_forbidden_arrow(module: str, source: str, rule: str) -> None:
    found = _flagged(module, source)
    assert found and all(rule in line for line in found), found


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("staticconsumer.protocol.group", "from staticconsumer.errors import ProtocolError"),
        # The tooling reaches aiokafka's internals through the seam's tooling module (issue 42).
        ("staticconsumer.localkafka._acls", "from .._compat.tooling import create_acl"),
        ("assignors.aiokafka_adapter", "from aiokafka.coordinator.protocol import X"),
        ("staticconsumer.errors",
         "if TYPE_CHECKING:\n    from .localkafka.errors import LocalKafkaError\n"),
        ("staticconsumer.cli.render", "from ..admin import DEFAULT_REMOVE_REASON, describe_group"),
        ("staticconsumer._demo", "from ..localkafka import create_topic\nfrom . import _data"),
        ("staticconsumer.analytics.job", "from ..security import SecuritySettings"),
        ("staticconsumer.drivers.classic", "from ..membership import user_data_for"),
        ("staticconsumer.membership._classic", "from ._plan import user_data_for"),
        ("staticconsumer.roster._barrier", "from ._record import Roster"),
        ("staticconsumer.roster._plan", "from ..membership import encode_assignments"),
        ("staticconsumer.roster._reader", "import asyncio\nfrom .._compat.roster import X"),
    ],
)  # fmt: skip
def test_allowed_arrows_are_not_flagged(module: str, source: str) -> None:
    assert _flagged(module, source, is_package=module == "staticconsumer._demo") == []


# --- the layer order: every SDK layer, each arrow upward flagged ---------------------------------

LAYER_NAMES = [name for name, _ in _imports.LAYERS]


@pytest.mark.parametrize(
    ("module", "source", "above"),
    [
        ("staticconsumer._consumer.static_consumer", "from ..admin import describe_group",
         "public face"),
        ("staticconsumer.drivers.loop", "from .. import StaticConsumer", "public face"),
        ("staticconsumer.drivers.classic", "from .._consumer.checks import X", "consumer"),
        ("staticconsumer.roster._gate", "from ..drivers import classic", "drivers"),
        ("staticconsumer.roster._reader",
         "def later():\n    from .._consumer import owned\n", "consumer"),
        ("staticconsumer._admin.describe", "if TYPE_CHECKING:\n    from ..roster import R\n",
         "roster"),  # the cycle that was cut: even a mypy-only arrow counts
        ("staticconsumer._admin.reconcile", "from .._consumer import StaticConsumer", "consumer"),
        ("staticconsumer._observability.emitter", "from ..drivers.classic import X", "drivers"),
        ("staticconsumer._observability.health", "from .._admin.client import C",
         "admin calls"),
        ("staticconsumer._compat.consumer", "from ..drivers import Driver", "drivers"),
        ("staticconsumer._compat.auth", "from .._observability.emitter import E",
         "observability"),
        ("staticconsumer._error_map", "from ._compat import close_client", "compat"),
        ("staticconsumer.membership._classic", "from .._error_map import fatal_error",
         "error map"),
        ("staticconsumer.options", "from .membership import GroupProtocol", "membership"),
        ("staticconsumer.events", "from .protocol import ErrorCode", "protocol"),
        ("staticconsumer.events", "from .options import ConsumerOptions", "options"),
        ("staticconsumer.security", "from . import StaticConsumer", "public face"),
        ("staticconsumer.errors", "def f():\n    from .membership import Membership\n",
         "membership"),
    ],
)  # fmt: skip
def test_each_layer_flags_an_import_from_a_layer_above(
    module: str, source: str, above: str
) -> None:
    found = _flagged(module, source)
    assert len(found) == 1 and "layers:" in found[0], found
    assert found[0].endswith(f"{above} is above it")
    here = _imports.layer_of(module)
    assert here is not None and LAYER_NAMES.index(above) < here  # the case is a real upward arrow


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("staticconsumer", "from ._consumer.static_consumer import StaticConsumer"),
        ("staticconsumer.admin", "from ._admin.describe import G\nfrom .roster import describe"),
        ("staticconsumer._consumer.assembly", "from ..drivers import Driver\nimport assignors"),
        ("staticconsumer.drivers.classic", "from ..roster import RosterGate"),
        ("staticconsumer.roster._store", "from .._admin.client import open_client"),
        ("staticconsumer.roster._reader", "from .._observability.emitter import E"),
        ("staticconsumer._admin.describe", "from .._roster_status import RosterStatus"),
        ("staticconsumer._admin.client", "from .._compat import close_client"),
        ("staticconsumer._compat.auth", "from .._error_map import translate"),
        ("staticconsumer._compat.consumer", "from ..membership import ClassicMember"),
        ("staticconsumer.membership._classic", "from ..options import ConsumerOptions"),
        ("staticconsumer.options",
         "from assignors import GroupAssignor\nfrom .errors import ConfigurationError\n"
         "from ._instance_id import InstanceId"),
        ("staticconsumer._error_map", "from .protocol import ErrorCode"),
        ("staticconsumer.security", "from ._java_properties import load"),  # its own layer
    ],
)  # fmt: skip
def test_an_import_from_the_same_layer_or_below_is_allowed(module: str, source: str) -> None:
    assert _flagged(module, source, is_package=module == "staticconsumer") == []


def test_a_module_in_no_layer_and_an_import_of_one_are_flagged() -> None:
    assert _flagged("staticconsumer._new", "import os") == [
        "staticconsumer._new: in no layer of LAYERS (place it)"
    ]
    found = _flagged("staticconsumer.drivers.classic", "from .._nowhere import x")
    assert found == [
        "staticconsumer.drivers.classic:1 imports staticconsumer._nowhere: "
        "staticconsumer._nowhere is in no layer of LAYERS (place it)"
    ]


def test_each_layer_member_is_placed_once_and_is_in_the_tree() -> None:
    members = [m for _, ms in _imports.LAYERS for m in ms]
    assert len(members) == len(set(members))
    tree = read_tree(REPO)
    missing = [m for m in members if not any(n == m or n.startswith(m + ".") for n in tree)]
    assert missing in ([], ["staticconsumer.options"])  # options: placed before it lands


# --- the drawings show the order the contract checks ---------------------------------------------


def _rows(text: str, start: str, stop: str) -> dict[str, str]:
    """Layer name -> its row (continuation lines included) of the drawing in ``text`` that
    begins after the line holding ``start`` and ends at the line holding ``stop``."""
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if start in line) + 1
    last = next(i for i in range(first, len(lines)) if stop in lines[i])
    rows: dict[str, str] = {}
    current = None
    for line in lines[first:last]:
        name = next((n for n in LAYER_NAMES if re.match(rf"\s*{n}\s{{2,}}", line)), None)
        current = name or current
        if current is not None:
            rows[current] = rows.get(current, "") + " " + line.strip()
    return rows


@pytest.mark.parametrize(
    ("path", "start", "stop"),
    [
        ("staticconsumer/__init__.py", "Layout:", "── the wall ──"),
        ("tests/contract/_imports.py", "Layers, top first", "Every SDK module"),
    ],
)
def test_the_layer_drawings_show_the_contracts_order(path: str, start: str, stop: str) -> None:
    rows = _rows((REPO / path).read_text(encoding="utf-8"), start, stop)
    assert list(rows) == LAYER_NAMES
    for name, members in _imports.LAYERS:
        for member in members:
            short = member.removeprefix("staticconsumer.")
            assert re.search(rf"(?<![\w.]){re.escape(short)}\b", rows[name]), (name, short)


def test_the_readme_layout_lists_the_sdk_in_layer_order() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("── the wall", 1)[0]
    entries = re.findall(r"^[├└]── ([\w.]+?)(?:/|\.py)?\s", block, flags=re.MULTILINE)
    order = [_imports.layer_of(f"staticconsumer.{e}" if e != "__init__" else "staticconsumer")
             for e in entries]  # fmt: skip
    assert None not in order, list(zip(entries, order, strict=True))
    assert order == sorted(order), list(zip(entries, order, strict=True))


def test_relative_imports_resolve_from_a_module_and_from_a_package() -> None:
    from_module = parse_imports("from .. import _retry", "staticconsumer.localkafka._cluster")
    from_package = parse_imports("from . import _probe", "staticconsumer.localkafka",
                                 is_package=True)  # fmt: skip
    assert [i.target for i in from_module] == ["staticconsumer._retry"]
    assert [i.target for i in from_package] == ["staticconsumer.localkafka._probe"]


def test_function_and_type_checking_imports_are_read_but_are_not_module_level() -> None:
    source = textwrap.dedent("""
        import os
        if TYPE_CHECKING:
            from .b import B
        def f():
            from .c import C
    """)
    found = parse_imports(source, "pkg.a", known={"pkg.b", "pkg.c"})
    assert [(i.target, i.module_level) for i in found] == [
        ("os", True),
        ("pkg.b", False),
        ("pkg.c", False),
    ]


def test_a_cycle_is_found_and_a_function_level_import_breaks_it() -> None:
    def imp(source: str, target: str, module_level: bool = True) -> Import:
        return Import(source, target, 1, module_level)

    tree = {
        "pkg.admin": [imp("pkg.admin", "pkg._admin.reconcile")],
        "pkg._admin.reconcile": [imp("pkg._admin.reconcile", "pkg.admin")],
        "pkg.other": [imp("pkg.other", "pkg.admin")],
    }
    assert cycles(tree) == [["pkg._admin.reconcile", "pkg.admin"]]
    tree["pkg._admin.reconcile"] = [imp("pkg._admin.reconcile", "pkg.admin", module_level=False)]
    assert cycles(tree) == []
    # ... unless lazy imports are counted: the fetch path's old circle was of that kind
    assert cycles(tree, lazy=True) == [["pkg._admin.reconcile", "pkg.admin"]]


def test_a_cython_modules_python_imports_count_and_its_cimports_do_not(tmp_path: Path) -> None:
    pyx = tmp_path / "fast.pyx"
    pyx.write_text(
        "from cpython.bytes cimport PyBytes_FromStringAndSize\n"
        "from aiokafka.structs import ConsumerRecord\n"
        "import staticconsumer.drivers\n"
        "cdef class Reader:\n    cdef object x\n"
    )
    source = _imports.python_imports(pyx)
    found = parse_imports(source, "staticconsumer._compat.fast")
    assert [i.target for i in found] == ["aiokafka.structs", "staticconsumer.drivers"]
