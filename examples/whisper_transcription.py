"""Transcribe speech with Whisper: raw 16 kHz audio in, text out, and a fine-tune on (audio, text) pairs (KerasHub's way, in tfkit).

    python examples/whisper_transcription.py                      # the full run: downloads KerasHub's Whisper tiny (English)
    python examples/whisper_transcription.py --audio a.wav b.wav  # your own 16 kHz mono 16-bit WAV files
    python examples/whisper_transcription.py --preset path/or/handle
    python examples/whisper_transcription.py --small              # a quick check: a tiny RANDOM Whisper made here,
                                                                  # taught three clips by heart (what the test suite runs)

The code is what a KerasHub user writes, with two imports changed:
``import tfkit as keras`` and ``import tfkit.hub as keras_hub``.
``WhisperAudioToText.from_preset`` loads the encoder-decoder backbone, the
byte-level byte-pair tokenizer and the audio converter, which turns raw
16 kHz audio into log-mel features. The preprocessor puts Whisper's prefix
(start of transcript, the task, no timestamps) before each transcript;
``generate`` takes ``{"audio": ...}`` (float arrays, one clip or a batch)
and returns text, the prefix and end token stripped, with the sampler chosen
in ``compile(sampler=...)``; ``fit`` trains on raw ``{"audio", "text"}``
pairs.

By default ``--preset`` is KerasHub's Whisper tiny, English only, on Kaggle
(``kaggle://keras/whisper/keras/whisper_tiny_en/4``, 39 M parameters):
``kagglehub`` downloads it (``pip install kagglehub``). A local preset folder
works too. The full run transcribes the WAV files given with ``--audio`` (or,
without any, the script's synthetic clips, which are tones, not speech), and
fine-tunes only when ``--epochs`` is given. It was not measured here (no
internet).

``--small`` downloads nothing. It learns a byte-pair vocabulary from the
example's own transcripts, makes a tiny RANDOM Whisper (1 layer each side,
hidden 32, 16 mel bands, 1-second clips), saves it as a preset with
``save_to_preset`` and loads it back with ``from_preset``. It synthesizes
three clips with NumPy (a low tone, a high tone, a rising chirp). Random
weights write random words, so the model first learns the clips'
transcripts by heart (80 steps of ``fit`` on the raw pairs): greedy ``generate`` on
each clip must then give its transcript, which the script checks and
reports (``memorized``, the fraction of clips transcribed exactly).
"""

from __future__ import annotations

import argparse
import os
import time
import wave

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

import tfkit as keras  # noqa: E402
import tfkit.hub as keras_hub  # noqa: E402

DEFAULT_PRESET = "kaggle://keras/whisper/keras/whisper_tiny_en/4"
SAMPLING_RATE = 16000
TRANSCRIPTS = [" a low hum.", " a high whistle.", " a rising chirp."]  # Whisper's transcripts start with a space
SPECIAL_TOKENS = [  # English-only Whisper's, numbered after the byte-pair vocabulary
    "<|endoftext|>",
    "<|startoftranscript|>",
    "<|translate|>",
    "<|transcribe|>",
    "<|startoflm|>",
    "<|startofprev|>",
    "<|nocaptions|>",
    "<|notimestamps|>",
]


def synthetic_clips(seconds: float = 0.9) -> np.ndarray:
    """Three clips, one per transcript: a 220 Hz tone, a 1.76 kHz tone, a chirp rising from 300 Hz to 3 kHz."""
    t = np.arange(int(seconds * SAMPLING_RATE)) / SAMPLING_RATE
    chirp_phase = 2 * np.pi * (300 * t + (3000 - 300) / (2 * seconds) * t**2)  # frequency 300 -> 3000 Hz
    clips = [np.sin(2 * np.pi * 220 * t), np.sin(2 * np.pi * 1760 * t), np.sin(chirp_phase)]
    fade = np.minimum(1.0, np.minimum(t, seconds - t) / 0.02)  # 20 ms fades: no clicks at the ends
    return (0.5 * np.stack(clips) * fade).astype("float32")


def read_wav(path: str) -> np.ndarray:
    """A 16 kHz mono 16-bit PCM WAV file as float32 samples in [-1, 1]."""
    with wave.open(path) as file:
        if (file.getframerate(), file.getnchannels(), file.getsampwidth()) != (SAMPLING_RATE, 1, 2):
            raise SystemExit(f"{path}: Whisper reads 16 kHz mono 16-bit audio; convert it first (e.g. with ffmpeg)")
        return np.frombuffer(file.readframes(file.getnframes()), "<i2").astype("float32") / 32768.0


def byte_characters() -> list[str]:
    """The character byte-level BPE writes for each of the 256 bytes (printable ones as themselves)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = iter(range(256, 512))
    return [chr(byte) if byte in printable else chr(next(shifted)) for byte in range(256)]


def word_vocabulary(texts: list[str]) -> tuple[dict[str, int], list[str]]:
    """The 256 byte characters, then each word of ``texts`` ("Ġ" for its leading space) built by merges left to
    right ("Ġ l", "Ġl o", "Ġlo w"), so that each word is one token; "." stays apart."""
    vocabulary = {character: i for i, character in enumerate(byte_characters())}
    merges = []
    for word in dict.fromkeys(w for text in texts for w in text.replace(".", "").split()):
        token = "Ġ"
        for character in word:
            merge = f"{token} {character}"
            if merge not in merges:
                merges.append(merge)
            token += character
            vocabulary.setdefault(token, len(vocabulary))
    return vocabulary, merges


def small_preset(folder: str) -> str:
    """A tiny random Whisper (1 layer each side, hidden 32, 16 mel bands, 1-second clips), saved as a preset."""
    vocabulary, merges = word_vocabulary(TRANSCRIPTS)
    special_tokens = {token: len(vocabulary) + i for i, token in enumerate(SPECIAL_TOKENS)}
    tokenizer = keras_hub.models.WhisperTokenizer(vocabulary=vocabulary, merges=merges, special_tokens=special_tokens)
    audio_converter = keras_hub.layers.WhisperAudioConverter(num_mels=16, max_audio_length=1)
    backbone = keras_hub.models.WhisperBackbone(
        vocabulary_size=len(vocabulary) + len(special_tokens),
        num_layers=1,
        num_heads=2,
        hidden_dim=32,
        intermediate_dim=64,
        num_mels=16,
        max_encoder_sequence_length=100,  # 1 s of audio: 100 feature frames
        max_decoder_sequence_length=16,
    )
    preprocessor = keras_hub.models.WhisperAudioToTextPreprocessor(
        audio_converter, tokenizer, decoder_sequence_length=10
    )
    keras_hub.models.WhisperAudioToText(backbone, preprocessor).save_to_preset(folder)
    print(f"saved a random Whisper preset to {folder}: {backbone.count_params():,} parameters")
    return folder


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a tiny random Whisper made here, no download")
    parser.add_argument("--preset", default=None, help=f"a preset folder or handle (default {DEFAULT_PRESET})")
    parser.add_argument("--audio", nargs="*", default=[], help="16 kHz mono WAV files to transcribe")
    parser.add_argument("--epochs", type=int, default=None, help="epochs of fit on the synthetic clips")
    parser.add_argument("--max-length", type=int, default=None, help="the decoder's length, prefix included")
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(0)
    preset = args.preset or (small_preset("whisper_tiny_preset") if args.small else DEFAULT_PRESET)
    epochs = args.epochs if args.epochs is not None else (4 if args.small else 0)
    max_length = args.max_length or (10 if args.small else 64)

    audio_to_text = keras_hub.models.WhisperAudioToText.from_preset(preset)
    print(f"loaded {preset}: {audio_to_text.backbone.count_params():,} parameters")
    # Training and generation run XLA-compiled by default; for a model this tiny the compile costs more than it
    # saves, so --small runs without.
    jit_compile = False if args.small else "auto"
    audio_to_text.compile(sampler="greedy", jit_compile=jit_compile)
    for path in args.audio:  # a batch of one clip at a time: any length (up to 30 s for Whisper's presets)
        print(f"  {path} -> {audio_to_text.generate({'audio': read_wav(path)[None]}, max_length=max_length)[0]!r}")

    clips, figures = synthetic_clips(), {}
    if epochs:
        # a tiny model learns fast; a pretrained one is fine-tuned gently. Greedy decoding: the transcript, not a sample
        optimizer = keras.optimizers.Adam(5e-3 if args.small else 1e-5)
        audio_to_text.compile(optimizer=optimizer, sampler="greedy", jit_compile=jit_compile)
        audio_to_text.preprocessor.decoder_sequence_length = max_length  # pad transcripts to this, not 448
        pairs = {"audio": np.concatenate([clips] * 20), "text": TRANSCRIPTS * 20}  # 20 steps of 3 pairs an epoch
        start = time.perf_counter()
        history = audio_to_text.fit(pairs, batch_size=3, epochs=epochs, verbose=0)
        losses = history.history["loss"]
        figures.update(first_loss=float(losses[0]), last_loss=float(losses[-1]))
        print(f"fit: {epochs} epochs, loss {losses[0]:.3f} -> {losses[-1]:.4f}, {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    outputs = audio_to_text.generate({"audio": clips}, max_length=max_length)
    seconds = time.perf_counter() - start
    for expected, output in zip(TRANSCRIPTS, outputs):
        print(f"  clip for {expected!r} -> {output!r}")
    memorized = sum(o.strip() == e.strip() for o, e in zip(outputs, TRANSCRIPTS)) / len(TRANSCRIPTS)
    print(f"memorized: {memorized:.2f} ({len(clips)} clips transcribed in {seconds:.1f} s)")
    if args.small and memorized < 1.0:
        raise SystemExit("the tiny Whisper did not learn its three transcripts")
    return {**figures, "memorized": float(memorized)}


if __name__ == "__main__":
    main()
