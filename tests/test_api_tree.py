"""tfkit.tree against keras.tree: the same answers on dicts, OrderedDicts, None, namedtuples and deques."""

import collections

import pytest
import tensorflow as tf

import tfkit

keras = pytest.importorskip("keras")

Point = collections.namedtuple("Point", ["x", "y"])
OtherPoint = collections.namedtuple("Point", ["x", "y"])

STRUCTURES = [
    1,
    None,
    "text",
    [None, 1],
    [],
    (),
    {},
    [[]],
    Point(1, [2, 3]),
    {"b": [1, 2], "a": (3, None)},
    collections.OrderedDict([("b", 1), ("a", {"z": 2, "y": 3})]),
    collections.defaultdict(int, {"z": 1, "y": 2}),
    collections.deque([1, (2, 3)]),
    {"x": Point(x=[1, 2], y={"k": None}), "w": [(), [4]]},
]


@pytest.mark.parametrize("structure", STRUCTURES, ids=repr)
def test_flatten_paths_and_repacking_match_keras(structure):
    assert tfkit.tree.flatten(structure) == keras.tree.flatten(structure)
    assert tfkit.tree.flatten_with_path(structure) == keras.tree.flatten_with_path(structure)
    assert tfkit.tree.is_nested(structure) == keras.tree.is_nested(structure)
    flat = [f"v{i}" for i in range(len(keras.tree.flatten(structure)))]
    ours, theirs = tfkit.tree.pack_sequence_as(structure, flat), keras.tree.pack_sequence_as(structure, flat)
    assert ours == theirs and type(ours) is type(theirs)
    assert list(ours.keys()) == list(theirs.keys()) if isinstance(ours, dict) else True
    mapped = tfkit.tree.map_structure(lambda v: (v,), structure)
    assert mapped == keras.tree.map_structure(lambda v: (v,), structure)
    assert tfkit.tree.lists_to_tuples(structure) == keras.tree.lists_to_tuples(structure)


def test_ordered_dict_keeps_its_order_where_tf_nest_sorts():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    assert tfkit.tree.flatten(od) == keras.tree.flatten(od) == [1, 2]
    assert tf.nest.flatten(od) == [2, 1]  # why tfkit.tree is not tf.nest
    assert tfkit.tree.pack_sequence_as(od, [5, 6]) == collections.OrderedDict([("b", 5), ("a", 6)])


def test_none_is_leaf_false_keeps_none_without_calling_func():
    calls = []
    result = tfkit.tree.map_structure(lambda v: calls.append(v) or v, [None, 1], none_is_leaf=False)
    assert result == keras.tree.map_structure(lambda v: v, [None, 1], none_is_leaf=False) == [None, 1]
    assert calls == [1]
    assert tfkit.tree.map_structure(lambda v: 7, None, none_is_leaf=False) is None


@pytest.mark.parametrize(
    "a,b",
    [
        ([1, 2], (1, 2)),
        (Point(0, 1), OtherPoint(0, 1)),
        ([1, [2]], [1, 3]),
        ([1, 3], [1, [2]]),
        ({"a": 1}, {"a": 1, "b": 2}),
        ([1], [1, 2]),
    ],
)
def test_mismatched_structures_raise_value_error_as_in_keras(a, b):
    with pytest.raises(ValueError):
        keras.tree.assert_same_structure(a, b)
    with pytest.raises(ValueError, match="path"):
        tfkit.tree.assert_same_structure(a, b)
    with pytest.raises(ValueError):
        tfkit.tree.map_structure(lambda u, v: u, a, b)


def test_matching_structures_pass_and_dict_kinds_compare_by_keys():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    for a, b in [({"a": 1, "b": 2}, od), (Point(0, 1), Point(2, 3)), ([(0, 1)], [(2, 3)]), (None, 5)]:
        keras.tree.assert_same_structure(a, b)
        tfkit.tree.assert_same_structure(a, b)
    with pytest.warns(DeprecationWarning):
        tfkit.tree.assert_same_structure([1], [2], check_types=True)


def test_assert_same_paths_ignores_container_types():
    tfkit.tree.assert_same_paths([0, 1], (2, 3))
    tfkit.tree.assert_same_paths(Point(0, 1), OtherPoint(2, 3))
    with pytest.raises(ValueError, match="missing in `b`"):
        tfkit.tree.assert_same_paths({"a": 1, "b": 2}, {"a": 1})


def test_map_structure_up_to_stops_at_the_shallow_leaves():
    structure = [[1, 1], [2, 2]]
    assert tfkit.tree.map_structure_up_to([None, None], len, structure) == [2, 2]
    assert tfkit.tree.map_structure_up_to([None, [None, None]], str, structure) == ["[1, 1]", ["2", "2"]]
    # Keras (optree) trips on None shallow leaves; with other leaves the answers agree
    assert tfkit.tree.map_structure_up_to([0, [0, 0]], str, structure) == keras.tree.map_structure_up_to(
        [0, [0, 0]], str, structure
    )
    with pytest.raises(ValueError):
        tfkit.tree.map_structure_up_to([0, [0, 0]], str, [[1, 1], 2])


def test_traverse_top_down_and_bottom_up_visit_as_keras():
    structure = [(1, 2), [3], {"a": 4}]
    for top_down in (True, False):
        ours, theirs = [], []
        assert tfkit.tree.traverse(ours.append, structure, top_down) == keras.tree.traverse(
            theirs.append, structure, top_down
        )
        assert ours == theirs
    replace = lambda v: tfkit.tree.MAP_TO_NONE if v == (1, 2) else None
    assert tfkit.tree.traverse(replace, structure) == [None, [3], {"a": 4}]


def test_map_shape_structure_treats_shape_tuples_as_leaves():
    structure = {"a": (None, 3), "b": [(2,), [4, 5]]}
    assert tfkit.tree.map_shape_structure(lambda s: tuple(s), structure) == keras.tree.map_shape_structure(
        lambda s: tuple(s), structure
    )


def test_pack_sequence_as_with_the_wrong_count_names_both_counts():
    with pytest.raises(ValueError, match="2 leaves.*1 items"):
        tfkit.tree.pack_sequence_as([1, 2], [1])


def test_tracked_containers_of_a_module_are_nodes():
    module = tf.Module()
    module.items = [1, {"b": 2, "a": 3}]
    assert tfkit.tree.flatten(module.items) == [1, 3, 2]
