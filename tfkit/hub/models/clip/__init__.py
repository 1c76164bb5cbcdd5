"""CLIP on tfkit: ``CLIPBackbone``, ``CLIPVisionEncoder``, ``CLIPTextEncoder``, ``CLIPTokenizer``, ``CLIPImageConverter``, ``CLIPPreprocessor``."""
