"""KerasHub presets read and written as data: handles, files, configs, weights.

    source = get_preset_loader("./gpt2_tiny")                    # or "hf://org/name", "kaggle://...": resolved once
    backbone = source.load_backbone(GPT2Backbone, load_weights=True)
    saver.save_backbone(backbone, "./my_preset")                 # KerasHub's layout: KerasHub loads it

A preset is a folder: ``config.json`` (the backbone), ``model.weights.h5`` (or
``model.weights.json`` and its shards), ``metadata.json``, ``tokenizer.json``,
``preprocessor.json``, ``task.json`` (and ``task.weights.h5``) and
``assets/<name>/`` (vocabularies, merges, SentencePiece models). Configs are
read with tfkit's config checks and budget and rebuilt by registered name
(``keras_hub>GPT2Backbone`` names tfkit's class); weights are read by tfkit's
Keras weights reader; nothing in a preset is imported or run. A Transformers
checkpoint folder (``config.json`` with a ``model_type``) is read by its
family's converter instead; ``preset_loader.get_preset_loader`` decides which,
once per ``from_preset``.
"""
