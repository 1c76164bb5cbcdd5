"""Gemma 3 (text) on tfkit: ``Gemma3Backbone``, ``Gemma3Tokenizer``, ``Gemma3CausalLMPreprocessor``, ``Gemma3CausalLM``.

KerasHub's Gemma 3 classes also read images (a SigLIP vision encoder, an image
converter); tfkit.hub builds the text model, and refuses a preset or argument
that asks for the vision parts with an error saying so.
"""
