"""Classifying tabular data with ``FeatureSpace`` (keras.io's "Structured data classification with FeatureSpace", in tfkit).

    python examples/structured_data.py            # the full run: 24,000 rows (70% train, 15% val, 15% test), 20 epochs
    python examples/structured_data.py --small    # a quick check: 2,000 rows, 1 epoch

The table is SYNTHETIC (no download here): a seeded numpy generator writes
the customers of a phone company, and whether each one leaves ("churns")
within the year. The label is drawn from a logistic rule of the columns, so
it is learnable but noisy (the rule itself scores about 78%); the rule
includes an interaction: month-to-month customers in regions 3 and 5 (where a
competitor opened) leave much more often, which the ``contract`` x ``region``
feature cross captures.

Columns: ``age``, ``monthly_charges``, ``tenure_months`` (floats);
``support_calls``, ``region``, ``family_plan`` (integers); ``contract`` and
``payment`` (strings). A ``tfkit.utils.FeatureSpace`` normalizes the floats,
cuts ``age`` into bins, one-hot encodes the integer and string categories
(``IntegerLookup``, ``StringLookup``), hashes the ``contract`` x ``region``
cross and concatenates everything into one vector. It is adapted on the
training rows (a ``tf.data`` dataset of dicts), a small model trains on the
encoded vectors, and an end-to-end model (raw feature dicts in, probability
out) scores new customers.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time

_SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if _SHARED.is_dir():  # this workplace keeps MNIST beside the repository
    os.environ.setdefault("TFKIT_DATA_DIR", str(_SHARED))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit  # noqa: E402
from tfkit import layers  # noqa: E402
from tfkit.utils import FeatureSpace  # noqa: E402

CONTRACTS = np.array(["month-to-month", "one-year", "two-year"])
PAYMENTS = np.array(["card", "bank transfer", "check", "cash"])


def synthetic_customers(rows: int, seed: int = 0) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``(columns, labels)``: a dict of ``rows`` values per column, and 1 where the customer churned."""
    rng = np.random.default_rng(seed)
    contract = rng.choice(CONTRACTS, rows, p=[0.5, 0.3, 0.2])
    region = rng.integers(1, 7, rows)
    columns = {
        "age": rng.uniform(18, 80, rows).round(),
        "monthly_charges": rng.gamma(9.0, 8.0, rows).round(2),
        "tenure_months": rng.exponential(24.0, rows).round(),
        "support_calls": rng.poisson(1.5, rows),
        "region": region,
        "family_plan": (rng.random(rows) < 0.3).astype("int64"),
        "contract": contract,
        "payment": rng.choice(PAYMENTS, rows, p=[0.4, 0.3, 0.2, 0.1]),
    }
    monthly = contract == "month-to-month"
    logit = (
        -1.4
        + 1.2 * monthly
        - 0.9 * (contract == "two-year")
        + 2.0 * (monthly & np.isin(region, [3, 5]))  # the competitor: an interaction
        + 0.035 * (columns["monthly_charges"] - 72)
        - 0.04 * (columns["tenure_months"] - 24)
        + 0.35 * (columns["support_calls"] - 1.5)
        - 0.02 * (columns["age"] - 49)
        - 0.6 * columns["family_plan"]
        + 0.5 * (columns["payment"] == "check")
    )
    labels = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype("int64")
    columns = {key: value.astype("float32") if value.dtype.kind == "f" else value for key, value in columns.items()}
    return columns, labels


def dataset(columns: dict[str, np.ndarray], labels: np.ndarray, rows: slice) -> tf.data.Dataset:
    return tf.data.Dataset.from_tensor_slices(({key: value[rows] for key, value in columns.items()}, labels[rows]))


def feature_space() -> FeatureSpace:
    return FeatureSpace(
        features={
            "age": FeatureSpace.float_discretized(num_bins=8),
            "monthly_charges": FeatureSpace.float_normalized(),
            "tenure_months": FeatureSpace.float_normalized(),
            "support_calls": FeatureSpace.float_normalized(),  # a count: used as a number
            "region": FeatureSpace.integer_categorical(num_oov_indices=0),
            "family_plan": FeatureSpace.integer_categorical(num_oov_indices=0),
            "contract": FeatureSpace.string_categorical(num_oov_indices=0),
            "payment": FeatureSpace.string_categorical(),  # unknown ways to pay: one OOV slot
        },
        crosses=[FeatureSpace.cross(feature_names=("contract", "region"), crossing_dim=32)],
        output_mode="concat",
    )


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="2,000 rows and 1 epoch")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args(argv)
    tfkit.utils.set_random_seed(0)
    epochs = args.epochs or (1 if args.small else 20)
    rows = 2000 if args.small else 24000
    columns, labels = synthetic_customers(rows)
    train_end, val_end = int(0.7 * rows), int(0.85 * rows)
    train_ds = dataset(columns, labels, slice(0, train_end)).shuffle(train_end, seed=0)
    val_ds = dataset(columns, labels, slice(train_end, val_end))
    test_ds = dataset(columns, labels, slice(val_end, rows))
    print(
        f"{rows} customers, {labels.mean():.1%} churned; the first: "
        + ", ".join(f"{key}={value[0]!s}" for key, value in columns.items())
    )

    space = feature_space()
    space.adapt(train_ds.map(lambda x, _: x))  # the training rows' statistics and vocabularies only
    encoded = space.get_encoded_features()
    print(f"encoded features: {encoded.shape[-1]} values per customer")

    def encode(x, y):
        return space(x), y

    train, val, test = (
        ds.batch(32).map(encode, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)
        for ds in (train_ds, val_ds, test_ds)
    )
    vector = tfkit.Input(shape=(encoded.shape[-1],), name="encoded_features")
    x = layers.Dense(32, activation="relu")(vector)
    x = layers.Dropout(0.5)(x)
    output = layers.Dense(1, activation="sigmoid")(x)
    training_model = tfkit.Model(vector, output, name="churn")
    training_model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    start = time.perf_counter()
    training_model.fit(train, validation_data=val, epochs=epochs, verbose=2)
    seconds = time.perf_counter() - start
    loss, accuracy = training_model.evaluate(test, verbose=0)

    # End to end: one Input per raw column (FeatureSpace.get_inputs()), the space's layers, then the classifier.
    inference_model = tfkit.Model(space.get_inputs(), training_model(encoded), name="churn_end_to_end")
    customers = {
        "age": [23.0, 61.0],
        "monthly_charges": [95.5, 40.0],
        "tenure_months": [3.0, 60.0],
        "support_calls": [4, 0],
        "region": [3, 1],
        "family_plan": [0, 1],
        "contract": ["month-to-month", "two-year"],
        "payment": ["check", "bank transfer"],
    }
    probabilities = inference_model.predict({key: tf.constant(value) for key, value in customers.items()}, verbose=0)[
        :, 0
    ]
    for i, probability in enumerate(probabilities):
        print(
            f"  customer {i}: {customers['contract'][i]}, region {customers['region'][i]}, "
            f"{customers['tenure_months'][i]:.0f} months: {probability:.1%} likely to churn"
        )
    print(
        f"test loss {loss:.4f}, test accuracy {accuracy:.4f} (always 'stays': "
        f"{1 - labels[val_end:].mean():.4f}), training {seconds:.0f} s"
    )
    return {
        "accuracy": float(accuracy),
        "loss": float(loss),
        "churn_probability_0": float(probabilities[0]),
        "churn_probability_1": float(probabilities[1]),
        "seconds": float(seconds),
    }


if __name__ == "__main__":
    main()
