"""keras-io "Structured data classification with FeatureSpace" (fchollet, 2022) with `keras` -> `tfkit`.

The example reads the Cleveland heart-disease CSV with pandas; there is no
network here, so a synthetic table with the same 13 columns and dtypes (and a
label that depends on them) stands in for it, built as dict columns instead of
a dataframe. From the FeatureSpace on, the code is the example's, with only the
import changed, fewer epochs, and checks of what it prints.
"""

import numpy as np
import tensorflow as tf

import tfkit as keras  # the one change: `from tensorflow import keras`
from tfkit.utils import FeatureSpace  # was: from keras.utils import FeatureSpace


def _heart_table(n, seed):
    rng = np.random.default_rng(seed)
    table = {
        "age": rng.integers(29, 78, n),
        "sex": rng.integers(0, 2, n),
        "cp": rng.integers(0, 5, n),
        "trestbps": rng.integers(94, 200, n),
        "chol": rng.integers(126, 564, n),
        "fbs": rng.integers(0, 2, n),
        "restecg": rng.integers(0, 3, n),
        "thalach": rng.integers(71, 202, n),
        "exang": rng.integers(0, 2, n),
        "oldpeak": rng.uniform(0, 6.2, n).round(1),
        "slope": rng.integers(1, 4, n),
        "ca": rng.integers(0, 4, n),
        "thal": np.array(["normal", "fixed", "reversible"])[rng.integers(0, 3, n)],
    }
    risk = (table["age"] - 50) / 10 + table["exang"] + (table["thal"] != "normal") + table["ca"] / 2 - 1.2
    table["target"] = (risk + rng.normal(0, 0.5, n) > 0).astype("int64")
    return table


def _to_dataset(table, seed):
    table = dict(table)
    labels = table.pop("target")
    ds = tf.data.Dataset.from_tensor_slices((table, labels))
    return ds.shuffle(buffer_size=len(labels), seed=seed)


def test_structured_data_classification_with_feature_space(tmp_path):
    train_ds = _to_dataset(_heart_table(240, 0), 1).batch(32)
    val_ds = _to_dataset(_heart_table(60, 2), 3).batch(32)

    feature_space = FeatureSpace(
        features={
            "sex": "integer_categorical",
            "cp": "integer_categorical",
            "fbs": "integer_categorical",
            "restecg": "integer_categorical",
            "exang": "integer_categorical",
            "ca": "integer_categorical",
            "thal": "string_categorical",
            "age": "float_discretized",
            "trestbps": "float_normalized",
            "chol": "float_normalized",
            "thalach": "float_normalized",
            "oldpeak": "float_normalized",
            "slope": "float_normalized",
        },
        crosses=[("sex", "age"), ("thal", "ca")],
        crossing_dim=32,
        output_mode="concat",
    )
    feature_space = FeatureSpace(
        features={
            "sex": FeatureSpace.integer_categorical(num_oov_indices=0),
            "cp": FeatureSpace.integer_categorical(num_oov_indices=0),
            "fbs": FeatureSpace.integer_categorical(num_oov_indices=0),
            "restecg": FeatureSpace.integer_categorical(num_oov_indices=0),
            "exang": FeatureSpace.integer_categorical(num_oov_indices=0),
            "ca": FeatureSpace.integer_categorical(num_oov_indices=0),
            "thal": FeatureSpace.string_categorical(num_oov_indices=0),
            "age": FeatureSpace.float_discretized(num_bins=30),
            "trestbps": FeatureSpace.float_normalized(),
            "chol": FeatureSpace.float_normalized(),
            "thalach": FeatureSpace.float_normalized(),
            "oldpeak": FeatureSpace.float_normalized(),
            "slope": FeatureSpace.float_normalized(),
        },
        crosses=[
            FeatureSpace.cross(feature_names=("sex", "age"), crossing_dim=64),
            FeatureSpace.cross(feature_names=("thal", "ca"), crossing_dim=16),
        ],
        output_mode="concat",
    )
    train_ds_with_no_labels = train_ds.map(lambda x, _: x)
    feature_space.adapt(train_ds_with_no_labels)

    for x, _ in train_ds.take(1):
        preprocessed_x = feature_space(x)
        # sex 2 + cp 5 + fbs 2 + restecg 3 + exang 2 + ca 4 + thal 3 + age 30 + 5 normalized + crosses 64 + 16
        assert preprocessed_x.shape == (32, 2 + 5 + 2 + 3 + 2 + 4 + 3 + 30 + 5 + 64 + 16)
        assert preprocessed_x.dtype == tf.float32

    preprocessed_train_ds = train_ds.map(lambda x, y: (feature_space(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    preprocessed_train_ds = preprocessed_train_ds.prefetch(tf.data.AUTOTUNE)
    preprocessed_val_ds = val_ds.map(lambda x, y: (feature_space(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    preprocessed_val_ds = preprocessed_val_ds.prefetch(tf.data.AUTOTUNE)

    dict_inputs = feature_space.get_inputs()
    encoded_features = feature_space.get_encoded_features()
    x = keras.layers.Dense(32, activation="relu")(encoded_features)
    x = keras.layers.Dropout(0.5)(x)
    predictions = keras.layers.Dense(1, activation="sigmoid")(x)
    training_model = keras.Model(inputs=encoded_features, outputs=predictions)
    training_model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    inference_model = keras.Model(inputs=dict_inputs, outputs=predictions)

    history = training_model.fit(preprocessed_train_ds, epochs=8, validation_data=preprocessed_val_ds, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["val_accuracy"][-1] > 0.6  # the label is learnable from the features

    sample = {
        "age": 60,
        "sex": 1,
        "cp": 1,
        "trestbps": 145,
        "chol": 233,
        "fbs": 1,
        "restecg": 2,
        "thalach": 150,
        "exang": 0,
        "oldpeak": 2.3,
        "slope": 3,
        "ca": 0,
        "thal": "fixed",
    }
    input_dict = {name: tf.convert_to_tensor([value]) for name, value in sample.items()}
    prediction = inference_model.predict(input_dict, verbose=0)
    assert prediction.shape == (1, 1) and 0.0 < prediction[0][0] < 1.0
    # the end-to-end model agrees with the FeatureSpace + training model it shares its layers with
    np.testing.assert_allclose(prediction, training_model.predict(feature_space(input_dict), verbose=0), rtol=1e-5)
    inference_model.save(tmp_path / "heart.keras")
    np.testing.assert_allclose(
        keras.models.load_model(tmp_path / "heart.keras").predict(input_dict, verbose=0), prediction, rtol=1e-6
    )
