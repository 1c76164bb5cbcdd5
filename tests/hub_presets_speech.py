"""Tiny random Whisper presets made by KerasHub (backbone, tokenizer, audio converter), for tfkit.hub's speech tests.

    folder = whisper_preset(tmp_path)           # config.json, model.weights.h5, tokenizer.json, audio_converter.json
    reference = keras_hub.models.Backbone.from_preset(folder)

KerasHub 0.32 has no Whisper task and no Transformers converter for Whisper or Moonshine, so the preset holds a
backbone, a tokenizer and an audio converter only, and no Transformers checkpoint is written.
"""

from __future__ import annotations

from hub_presets import gpt2_vocabulary, keras, keras_hub

SAMPLING_RATE = 16000
MAX_AUDIO_LENGTH = 1  # seconds: 100 feature frames, 50 encoder positions
NUM_MELS = 16
WHISPER_SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|startoftranscript|>",
    "<|translate|>",
    "<|transcribe|>",
    "<|startoflm|>",
    "<|startofprev|>",
    "<|nocaptions|>",
    "<|notimestamps|>",
]
WHISPER_LANGUAGES = ["<|en|>", "<|de|>"]


def whisper_vocabulary() -> tuple[dict[str, int], list[str], dict[str, int], dict[str, int]]:
    """A byte-level vocabulary with a few merges, then Whisper's special tokens and two language tokens after it,
    as Whisper's multilingual tokenizer numbers them."""
    vocabulary, merges = gpt2_vocabulary()
    vocabulary.pop("<|endoftext|>")
    special_tokens = {token: len(vocabulary) + i for i, token in enumerate(WHISPER_SPECIAL_TOKENS)}
    start = len(vocabulary) + len(special_tokens)
    language_tokens = {token: start + i for i, token in enumerate(WHISPER_LANGUAGES)}
    return vocabulary, merges, special_tokens, language_tokens


WHISPER_VOCABULARY_SIZE = len(whisper_vocabulary()[0]) + len(WHISPER_SPECIAL_TOKENS) + len(WHISPER_LANGUAGES)
WHISPER_ARGUMENTS = {
    "vocabulary_size": WHISPER_VOCABULARY_SIZE,
    "num_layers": 2,
    "num_heads": 2,
    "hidden_dim": 16,
    "intermediate_dim": 32,
    "num_mels": NUM_MELS,
    "max_encoder_sequence_length": MAX_AUDIO_LENGTH * SAMPLING_RATE // 160,
    "max_decoder_sequence_length": 24,
}


def whisper_tokenizer() -> object:
    """KerasHub's multilingual WhisperTokenizer on the tiny vocabulary."""
    vocabulary, merges, special_tokens, language_tokens = whisper_vocabulary()
    return keras_hub.models.WhisperTokenizer(
        vocabulary=vocabulary, merges=merges, special_tokens=special_tokens, language_tokens=language_tokens
    )


def whisper_audio_converter() -> object:
    """KerasHub's WhisperAudioConverter for 1 s clips and 16 mel bands."""
    return keras_hub.layers.WhisperAudioConverter(num_mels=NUM_MELS, max_audio_length=MAX_AUDIO_LENGTH)


def whisper_preset(folder: str) -> str:
    """A random WhisperBackbone preset (2 layers, hidden 16) with its tokenizer and audio converter, by KerasHub."""
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.WhisperBackbone(**WHISPER_ARGUMENTS)
    for variable in backbone.weights:  # random biases and norms too, so that every weight matters
        if variable.path.endswith(("bias", "beta", "gamma")):
            variable.assign(keras.random.uniform(variable.shape, -0.3, 0.3) + (variable.path.endswith("gamma")))
    backbone.save_to_preset(folder)
    whisper_tokenizer().save_to_preset(folder)
    whisper_audio_converter().save_to_preset(folder)
    return folder


MOONSHINE_ARGUMENTS = {
    "filter_dim": 16,
    "encoder_num_layers": 2,
    "decoder_num_layers": 2,
    "hidden_dim": 16,
    "intermediate_dim": 32,
    "encoder_num_heads": 2,
    "decoder_num_heads": 2,
    "feedforward_expansion_factor": 2,
    "max_position_embeddings": 64,
    "initializer_range": 0.3,  # large weights: greedy decoding then picks varied tokens
}


def moonshine_preset(folder: str, decoder_sequence_length: int = 8) -> str:
    """A random MoonshineAudioToText preset (2+2 layers, hidden 16, a SentencePiece vocabulary of 80) by KerasHub."""
    from hub_presets_mistral import sentence_piece_model

    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.MoonshineTokenizer(proto=sentence_piece_model())
    backbone = keras_hub.models.MoonshineBackbone(vocabulary_size=tokenizer.vocabulary_size(), **MOONSHINE_ARGUMENTS)
    for variable in backbone.weights:  # random biases and norms too, so that every weight matters
        if variable.path.endswith(("bias", "beta", "gamma")):
            variable.assign(keras.random.uniform(variable.shape, -0.3, 0.3) + (variable.path.endswith("gamma")))
    preprocessor = keras_hub.models.MoonshineAudioToTextPreprocessor(
        audio_converter=keras_hub.layers.MoonshineAudioConverter(),
        tokenizer=tokenizer,
        decoder_sequence_length=decoder_sequence_length,
    )
    keras_hub.models.MoonshineAudioToText(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder
