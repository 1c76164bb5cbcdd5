"""Gemma 3 on tfkit: ``Gemma3Backbone``, ``Gemma3Tokenizer``, ``Gemma3CausalLMPreprocessor``, ``Gemma3CausalLM``,
and the multimodal models' ``Gemma3VisionEncoder`` and ``Gemma3ImageConverter``.

A backbone with a vision encoder takes images with its prompts: each image's
soft tokens replace the ``<img>`` placeholders that the preprocessor writes for
each ``<start_of_image>`` of a prompt (``gemma3_image_prompts``,
``gemma3_interleave_embeddings``), and ``Gemma3CausalLM.generate`` takes
``{"prompts", "images"}``.
"""
