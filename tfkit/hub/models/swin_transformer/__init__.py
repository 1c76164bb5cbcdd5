"""Swin Transformer on tfkit: ``SwinTransformerBackbone``, ``SwinTransformerImageConverter``, ``SwinTransformerImageClassifierPreprocessor``, ``SwinTransformerImageClassifier``."""
