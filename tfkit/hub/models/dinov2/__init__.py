"""DINOv2 on tfkit: ``DINOV2Backbone`` and ``DINOV2ImageConverter``."""
