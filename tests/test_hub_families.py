"""The conformance table's decoder rows (GPT-2, Gemma, Llama, Mistral, OPT, GPT-NeoX, Bloom, Falcon, Phi-3).

The table, its inputs and its five tests are in ``hub_family_table.py``; this file runs them on its group.

    python -m pytest tests/test_hub_families.py -k <family>
"""

from hub_family_table import (  # noqa: F401  (the tests, collected here)
    built_fixture,
    test_a_keras_hub_preset_loads_as_its_family_with_keras_hubs_numbers_and_weight_paths,
    test_a_preset_tfkit_saves_loads_in_keras_hub_with_the_same_numbers,
    test_a_transformers_checkpoint_of_the_same_weights_loads_with_the_same_numbers,
    test_evaluate_gives_keras_hubs_loss_and_one_fit_step_on_raw_data_changes_the_weights,
    test_greedy_generation_gives_keras_hubs_ids_and_texts,
)

built = built_fixture("decoders")
