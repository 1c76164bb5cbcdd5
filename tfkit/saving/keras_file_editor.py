"""``KerasFileEditor``: inspect, edit and re-save the weights of a Keras ``.keras`` / ``.weights.h5`` file.

    editor = KerasFileEditor("old.weights.h5")
    editor.compare(model)                    # which weights the file lacks, has in excess, or shapes differently
    editor.rename_object("dense_2", "head"); editor.resave_weights("fixed.weights.h5")

As Keras 3's editor: the weights are a nested dict of plain numpy arrays, one entry per object
path (``layers/dense`` -> ``{"0": kernel, "1": bias}``; Keras's ``vars`` level is folded away).
The file is read by tfkit's guarded reader (a forked child under limits; a ``.keras`` archive is
unpacked with its checks), so a hostile file is a ``ValueError`` and nothing of it runs.
``save`` writes a Keras ``.weights.h5`` beside the target and renames it into place.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import h5py
import numpy as np

from tfkit.files import atomic
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.keras_files.archive import read_archive
from tfkit.saving.keras_files.weights_layout import _lora_layout, keras3_layer_paths

Tree = dict[str, Any]


def _tree_from_snapshot(snapshot: Any) -> Tree:
    """``{"layers": {"dense": {"0": array, ...}}, "optimizer": {...}}`` from the file's datasets."""
    tree: Tree = {}
    for group in sorted(snapshot.tables):
        for relative, dataset in sorted(snapshot.tables[group].items()):
            parts = [group, *relative.split("/")]
            if len(parts) >= 2 and parts[-2] == "vars":
                parts = parts[:-2] + parts[-1:]
            node = tree
            for part in parts[:-1]:
                node = node.setdefault(part, {})
                if not isinstance(node, dict):
                    raise ValueError(f"{snapshot.filename}: /{'/'.join(parts)} is both a weight and an object")
            node[parts[-1]] = np.array(dataset.array)
    return tree


def _model_spec(model: Any) -> Tree:
    """The Keras-file layout of ``model``'s layer weights, as shapes."""
    spec: Tree = {}
    for prefix, layer in keras3_layer_paths(model):
        stored, _ = _lora_layout(layer)
        if not stored:
            continue
        node = spec.setdefault("layers", {})
        for part in prefix.split("/"):
            node = node.setdefault(part, {})
        for index, variable in enumerate(stored):
            node[str(index)] = tuple(variable.shape)
    return spec


class KerasFileEditor:
    """Inspects, edits and re-saves the weights of a Keras `.keras` or `.weights.h5` file.

    Keras 3's weights-file editor, on tfkit's guarded reader. The weights
    are held in `weights_dict`, a nested dict of plain NumPy arrays with one
    entry per object path (`layers/dense` -> `{"0": kernel, "1": bias}`;
    Keras's `vars` level is folded away). A `.keras` archive's `config` and
    `metadata` are kept as attributes. The file is read by tfkit's guarded
    reader (a separate process under memory and CPU limits; a `.keras`
    archive is unpacked with its checks), so a hostile file gives a
    `ValueError` and nothing in it runs. Use it to fix a Keras file whose
    layer names no longer match a model (`compare`, `rename_object`, ...),
    then `save` a new file; the source file is never changed. It edits
    Keras's layout, not tfkit's own `.h5` files. Creating the editor prints
    the file's name.

    Args:
        filepath: Path of a Keras `.keras` archive or `.weights.h5` file.

    Raises:
        ValueError: If the name has another extension, the archive holds no
            weights, or the file is refused by the reader.

    Example:
        >>> import h5py
        >>> with h5py.File("keras.weights.h5", "w") as f:
        ...     _ = f.create_dataset("layers/dense/vars/0", data=np.ones((3, 2), "float32"))
        ...     _ = f.create_dataset("layers/dense/vars/1", data=np.zeros((2,), "float32"))
        >>> editor = tfkit.saving.KerasFileEditor("keras.weights.h5")
        Keras model file 'keras.weights.h5'
        >>> editor.summary()
        Weights file: keras.weights.h5
        ...layers
        ...    dense
        ...        0: shape=(3, 2), dtype=float32
        ...        1: shape=(2,), dtype=float32
        >>> editor.rename_object("dense", "head")
        >>> editor.save("renamed.weights.h5")
        >>> sorted(tfkit.saving.KerasFileEditor("renamed.weights.h5").weights_dict["layers"])
        Keras model file 'renamed.weights.h5'
        ['head']
    """

    def __init__(self, filepath: str | os.PathLike) -> None:
        self.filepath = os.fspath(filepath)
        self.config: Any = None
        self.metadata: Any = None
        if self.filepath.endswith(".keras"):
            with read_archive(self.filepath) as archive:
                self.config, self.metadata = archive.config, archive.metadata
                if archive.weights_path is None:
                    raise ValueError(f"{self.filepath}: the archive holds no model.weights.h5")
                snapshot = read_snapshot(archive.weights_path, ("*",))
        elif self.filepath.endswith(".weights.h5"):
            snapshot = read_snapshot(self.filepath, ("*",))
        else:
            raise ValueError(
                f"Invalid filename: expected a `.keras` `.weights.h5` extension. Received: filepath={self.filepath}"
            )
        self.weights_dict = _tree_from_snapshot(snapshot)
        print(f"Keras model file '{self.filepath}'")
        if self.metadata:
            print(f"Saved with Keras {self.metadata.get('keras_version')} - date: {self.metadata.get('date_saved')}")

    # -- looking --

    def summary(self) -> None:
        """Prints the file's objects, and the shapes and dtypes of their weights."""

        def show(node: Tree, indent: str) -> None:
            for key, value in node.items():
                if isinstance(value, dict):
                    print(f"{indent}{key}")
                    show(value, indent + "    ")
                else:
                    print(f"{indent}{key}: shape={tuple(value.shape)}, dtype={value.dtype}")

        print(f"Weights file: {self.filepath}")
        show(self.weights_dict, "...")

    def compare(self, reference_model: Any) -> dict[str, Any]:
        """Compares the file's weights with a model's, printing every difference.

        Lists every object or weight only one side has, and every shape
        mismatch. The file's optimizer variables are not compared (the
        model's layers are).

        Args:
            reference_model: The tfkit model to compare with.

        Returns:
            A dict `{"status": "success" or "error", "error_count": n,
            "match_count": m}`.
        """
        print("Running comparison")
        reference = _model_spec(reference_model)
        mine = {key: value for key, value in self.weights_dict.items() if key in ("layers", "vars")}
        errors, matches = self._compare(mine, reference, "")
        status = "success" if not errors else "error"
        print("─────────────────────")
        if errors:
            print(f"Found {errors} error{'s' * (errors != 1)}: saved file is not compatible with the reference model")
        else:
            print("Comparison successful: saved file is compatible with the reference model")
            print(f"    Found {matches} matching weight{'s' * (matches != 1)}")
        return {"status": status, "error_count": errors, "match_count": matches}

    @staticmethod
    def _compare(saved: Tree, reference: Tree, where: str) -> tuple[int, int]:
        errors = matches = 0
        for key in list(dict.fromkeys([*reference, *saved])):
            path = f"{where}/{key}"
            if key not in saved:
                errors += 1
                kind = "Object" if isinstance(reference[key], dict) else "Weight"
                print(f"...{kind} {path} present in reference model, missing from saved file")
            elif key not in reference:
                errors += 1
                kind = "Object" if isinstance(saved[key], dict) else "Weight"
                print(f"...{kind} {path} present in saved file, missing from reference model")
            elif isinstance(reference[key], dict) and isinstance(saved[key], dict):
                more_errors, more_matches = KerasFileEditor._compare(saved[key], reference[key], path)
                errors, matches = errors + more_errors, matches + more_matches
            elif isinstance(reference[key], dict) or isinstance(saved[key], dict):
                errors += 1
                print(f"...{path} is an object on one side and a weight on the other")
            elif tuple(saved[key].shape) != tuple(reference[key]):
                errors += 1
                print(
                    f"...Weight shape mismatch for {path}\n    In reference model: shape={reference[key]}\n"
                    f"    In saved file: shape={tuple(saved[key].shape)}"
                )
            else:
                matches += 1
        return errors, matches

    # -- editing --

    def _edit_object(self, edit: Callable[[Tree, str, Any], None], source_name: str, target_name: Any = None) -> None:
        if target_name is not None and "/" in target_name:
            raise ValueError(
                f"Argument `target_name` should be a leaf name, not a full path name. "
                f"Received: target_name='{target_name}'"
            )
        if "/" in source_name:
            *parents, leaf = source_name.split("/")
            node = self.weights_dict
            for part in parents:
                if not isinstance(node.get(part), dict):
                    raise ValueError(f"Path '{source_name}' not found in model.")
                node = node[part]
            if leaf not in node:
                raise ValueError(f"Path '{source_name}' not found in model.")
            edit(node, leaf, target_name)
            return
        holders = []

        def find(node: Tree) -> None:
            for value in node.values():
                if isinstance(value, dict):
                    find(value)
            if source_name in node:
                holders.append(node)

        find(self.weights_dict)
        if len(holders) > 1:
            raise ValueError(f"Name '{source_name}' occurs more than once in the model; try passing a complete path")
        if not holders:
            raise ValueError(
                f"Source name '{source_name}' does not appear in the model. Use `editor.summary()` to list all objects."
            )
        edit(holders[0], source_name, target_name)

    def rename_object(self, object_name: str, new_name: str) -> None:
        """Renames an object.

        Args:
            object_name: The object's name (`"dense_2"`, when unique) or full
                path (`"layers/dense_2"`).
            new_name: The new leaf name (no `/`).

        Raises:
            ValueError: If the object is not found or ambiguous, or
                `new_name` is taken or holds `/`.
        """

        def rename(node: Tree, source: str, target: Any) -> None:
            if target in node:
                raise ValueError(f"Cannot rename '{object_name}' to '{target}': that name is taken")
            node[target] = node.pop(source)

        self._edit_object(rename, object_name, new_name)

    def delete_object(self, object_name: str) -> None:
        """Removes an object and its weights.

        Args:
            object_name: The object's name (`"dense_2"`, when unique) or full
                path (`"layers/dense_2"`).

        Raises:
            ValueError: If the object is not found or ambiguous.
        """
        self._edit_object(lambda node, source, _: node.pop(source), object_name)

    def add_object(self, object_path: str, weights: dict[str, Any]) -> None:
        """Adds a new object with its weights (an object already at that path is replaced).

        Args:
            object_path: Full path of the new object, such as
                `"layers/dense_2"`.
            weights: Dict mapping weight names to arrays, such as
                `{"0": kernel, "1": bias}`.

        Raises:
            ValueError: If the parent path does not exist or `weights` is not
                a dict.
        """
        checked = self._weights(weights)
        *parents, leaf = object_path.split("/")
        node = self.weights_dict
        for part in parents:
            if not isinstance(node.get(part), dict):
                raise ValueError(f"Path '{'/'.join(parents)}' not found in model.")
            node = node[part]
        node[leaf] = checked

    def delete_weight(self, object_name: str, weight_name: str) -> None:
        """Removes one weight of an object.

        Args:
            object_name: The object's name or full path.
            weight_name: The weight's name, such as `"0"`.

        Raises:
            ValueError: If the object or weight is not found.
        """

        def delete(node: Tree, source: str, _: Any) -> None:
            if weight_name not in node[source]:
                raise ValueError(
                    f"Weight {weight_name} not found in object {object_name}. Weights found: "
                    f"{list(node[source].keys())}"
                )
            node[source].pop(weight_name)

        self._edit_object(delete, object_name)

    def add_weights(self, object_name: str, weights: dict[str, Any]) -> None:
        """Adds (or replaces) weights of an existing object.

        Args:
            object_name: The object's name or full path.
            weights: Dict mapping weight names to arrays, such as
                `{"2": values}`.

        Raises:
            ValueError: If the object is not found or `weights` is not a
                dict.
        """
        checked = self._weights(weights)
        self._edit_object(lambda node, source, _: node[source].update(checked), object_name)

    @staticmethod
    def _weights(weights: Any) -> dict[str, np.ndarray]:
        if not isinstance(weights, dict):
            raise ValueError(
                "Argument `weights` should be a dict where keys are weight names (usually '0', '1', "
                f"etc.) and values are NumPy arrays. Received: type(weights)={type(weights)}"
            )
        return {str(key): np.asarray(value) for key, value in weights.items()}

    # -- writing --

    def save(self, filepath: str | os.PathLike) -> None:
        """Writes the edited weights as a Keras `.weights.h5` file.

        The file is written beside the target and renamed into place; the
        source file is untouched.

        Args:
            filepath: The path to write; must end in `.weights.h5`.

        Raises:
            ValueError: If the path does not end in `.weights.h5`.
        """
        filepath = os.fspath(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(
                f"Invalid `filepath` argument: expected a `.weights.h5` extension. Received: filepath={filepath}"
            )

        def write(group: Any, node: Tree) -> None:
            leaves = {key: value for key, value in node.items() if not isinstance(value, dict)}
            for key, value in node.items():
                if isinstance(value, dict) and value:
                    write(group.require_group(key), value)
            if leaves:
                store = group.require_group("vars")
                store.attrs["name"] = group.name.rsplit("/", 1)[-1]
                for key, value in leaves.items():
                    store.create_dataset(key, data=value)

        with atomic.atomic_file(filepath) as temporary:
            with h5py.File(temporary, "w") as out:
                write(out, self.weights_dict)
                out.require_group("vars")

    def resave_weights(self, filepath: str | os.PathLike) -> None:
        """Writes the edited weights as a Keras `.weights.h5` file: `save` under Keras's other name.

        Args:
            filepath: The path to write; must end in `.weights.h5`.
        """
        self.save(filepath)
