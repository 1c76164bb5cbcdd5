"""ViT on tfkit: ``ViTBackbone``, ``ViTImageConverter``, ``ViTImageClassifierPreprocessor``, ``ViTImageClassifier``."""
