"""SigLIP on tfkit: ``SigLIPBackbone``, ``SigLIPVisionEncoder``, ``SigLIPTextEncoder``, ``SigLIPTokenizer``, ``SigLIPImageConverter``, ``SigLIPPreprocessor``, ``SigLIPLoss``."""
