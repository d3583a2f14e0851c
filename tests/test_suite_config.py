"""The suite's own configuration: the tests marked ``xdist_group`` reach pytest-xdist's
loadgroup scheduler as one group (tests/conftest.py puts the ``@group`` suffix into their node
ids where xdist's own write is lost), so a group's module fixtures are built once."""

from __future__ import annotations

import conftest
import pytest

pytestmark = pytest.mark.xdist_group("suite_config")


class _Item:
    """A test item as the hook sees it: a node id (structured, as pytest keeps it) and marks."""

    def __init__(self, node_id, marks):
        self._id = node_id
        self._marks = marks

    @property
    def nodeid(self) -> str:
        return str(self._id)

    def iter_markers(self, name):
        return (m for m in self._marks if m.name == name)


def test_grouped_tests_carry_their_group_in_the_node_id(request):
    node_id = type(request.node._id) if hasattr(request.node, "_id") else None
    if node_id is None or not hasattr(node_id, "parse"):  # a pytest with string node ids
        node_id = type("NodeId", (str,), {"parse": classmethod(lambda cls, s: cls(s))})
    group = pytest.mark.xdist_group("report").mark
    grouped = _Item(node_id.parse("tests/test_x.py::test_a[1]"), [group])
    named = _Item(
        node_id.parse("tests/test_x.py::test_b"), [pytest.mark.xdist_group(name="a").mark]
    )
    plain = _Item(node_id.parse("tests/test_x.py::test_c"), [pytest.mark.slow(reason="x").mark])
    done = _Item(node_id.parse("tests/test_x.py::test_d@report"), [group])
    conftest._keep_xdist_groups([grouped, named, plain, done])
    assert grouped.nodeid == "tests/test_x.py::test_a[1]@report"
    assert named.nodeid == "tests/test_x.py::test_b@a"
    assert plain.nodeid == "tests/test_x.py::test_c"
    assert done.nodeid == "tests/test_x.py::test_d@report"  # xdist's own suffix is kept once


def test_this_run_schedules_groups_together(request):
    """Under ``-n N --dist loadgroup`` (the suite's default) this grouped test's id ends in
    its group; run serially there is no scheduler and the id is the plain one."""
    loadgroup = getattr(request.config.option, "loadgroup", False)
    assert request.node.nodeid.endswith("@suite_config") == bool(loadgroup)
    assert conftest.xdist_group(request.node) == "suite_config"
