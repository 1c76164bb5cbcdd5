"""Writing files so that a kill, a full disk or a second process never loses one.

    with atomic.atomic_file("m.h5") as tmp: write(tmp)          # a whole new file or the old one
    checkpoint_files.publish_checkpoint(checkpoint.write, "ckpt/w")

Building blocks for ``saving`` and the callbacks that write files
(``BackupAndRestore``, ``ModelCheckpoint``): they know files, folders and
locks, never models.
"""
