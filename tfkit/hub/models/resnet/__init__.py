"""ResNet on tfkit: ``ResNetBackbone``, ``ResNetImageConverter``, ``ResNetImageClassifierPreprocessor``, ``ResNetImageClassifier``."""
