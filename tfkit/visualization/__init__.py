"""``tfkit.visualization``: Keras's box and mask drawing and image galleries (Pillow, matplotlib)."""
