"""What reading a damaged or hostile zip archive can raise, beyond ``ValueError``: one tuple for every reader.

    try:
        with zipfile.ZipFile(path) as archive:
            data = archive.read("config.json")
    except ZIP_READ_ERRORS as error:
        raise ValueError(f"{path} is not a readable zip archive ({type(error).__name__}: {error})") from None

Found by fuzzing the readers (``tools/fuzz.py``): besides ``zipfile.BadZipFile``,
``zipfile`` lets ``zlib.error`` out of a corrupt deflate stream, ``EOFError`` out of
a truncated one, ``UnicodeDecodeError`` out of a member name flagged UTF-8 that is
not, ``NotImplementedError`` out of an unknown compression method, and ``OSError(EINVAL)`` out of a
seek to a negative offset; ``machine_fault`` tells those from a full disk.
"""

from __future__ import annotations

import errno
import zipfile
import zlib

# what an OSError says when the machine fell short (room, quota, handles, rights, the disk), not the archive
MACHINE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE, errno.EACCES, errno.EPERM, errno.EROFS, errno.EIO}
)

ZIP_READ_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    zlib.error,
    UnicodeDecodeError,
)


def machine_fault(error: BaseException) -> bool:
    """Whether ``error`` is the machine's (a full disk, no file handles, no rights), not the archive's.

    ``zipfile`` seeking to a negative offset that a damaged archive names raises ``OSError(EINVAL)``; a bad
    gzip or bzip2 stream raises an ``OSError`` without an errno: both are the archive's.
    """
    return isinstance(error, OSError) and error.errno in MACHINE_ERRNOS
