"""DeiT on tfkit: ``DeiTBackbone``, ``DeiTImageConverter``, ``DeiTImageClassifierPreprocessor``, ``DeiTImageClassifier``."""
