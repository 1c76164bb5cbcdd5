"""One module per fuzz target: its reader, seeds, check and reference (see ``fuzzing.target``)."""
