"""MobileNet on tfkit: ``MobileNetBackbone``, ``MobileNetImageConverter``, ``MobileNetImageClassifierPreprocessor``, ``MobileNetImageClassifier``."""
