"""EfficientNet on tfkit: ``EfficientNetBackbone``, ``EfficientNetImageConverter``, ``EfficientNetImageClassifierPreprocessor``, ``EfficientNetImageClassifier``."""
