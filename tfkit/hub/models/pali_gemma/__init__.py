"""PaliGemma: a SigLIP-style ViT and a Gemma decoder with a prefix-LM mask (KerasHub's ``pali_gemma`` family)."""
