"""``keras.applications.resnet50``'s names: ResNet50 and its preprocessing (the model lives in ``resnet``).

from tfkit.applications import resnet50
model = resnet50.ResNet50(weights=None, include_top=False, input_shape=(64, 64, 3))
x = resnet50.preprocess_input(images)
"""

from tfkit.applications.resnet import ResNet50, decode_predictions, preprocess_input  # noqa: F401
