"""What reading a damaged or hostile zip archive can raise, beyond ``ValueError``: one tuple for every reader.

    try:
        with zipfile.ZipFile(path) as archive:
            data = archive.read("config.json")
    except ZIP_READ_ERRORS as error:
        raise ValueError(f"{path} is not a readable zip archive ({type(error).__name__}: {error})") from None

Found by fuzzing the readers (``tools/fuzz.py``): besides ``zipfile.BadZipFile``,
``zipfile`` lets ``zlib.error`` out of a corrupt deflate stream, ``EOFError`` out of
a truncated one, ``UnicodeDecodeError`` out of a member name flagged UTF-8 that is
not, and ``NotImplementedError`` out of an unknown compression method.
"""

from __future__ import annotations

import zipfile
import zlib

ZIP_READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, RuntimeError, NotImplementedError,
                   zlib.error, UnicodeDecodeError)
