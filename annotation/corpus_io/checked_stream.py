"""The bytes of an uploaded file as the JSON parser reads them: strict UTF-8, no lone
surrogate escapes, bounded size.

The JSON parser (yajl) is lenient where a corpus must not be: it lets some invalid UTF-8
through, turns a lone ``\\ud800`` escape into "?" and pairs a high surrogate escape with
any escape that follows it. So every byte is checked here, with Python's strict decoder
and a scan of the ``\\uD...`` escapes, before the parser sees it. The parser is handed
only the part of a chunk before the fault, and the error is raised on the next read, so
the parser has consumed everything up to the fault and the reader can name the document
and field where it sits."""

import codecs
import re
from typing import BinaryIO

_BOM = codecs.BOM_UTF8
_WHITESPACE = b" \t\r\n"
# An escape \uD800-\uDFFF (after an even run of backslashes: "\\\\ud800" is a backslash
# and text) that is not a high surrogate followed by a low one: group 1 is then set.
_SURROGATE_ESCAPE = re.compile(
    rb"(?<!\\)(?:\\\\)*\\u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|([dD][89a-fA-F][0-9a-fA-F]{2}))"
)
_ESCAPE_LENGTH = 6  # bytes of one \\uXXXX escape


class InvalidBytes(Exception):
    """The file is not valid UTF-8, or larger than allowed; ``str`` says where."""


class CheckedStream:
    """A read-only binary stream over ``raw`` that drops a leading BOM, refuses invalid
    UTF-8 and stops after ``max_bytes``. ``saw_content`` tells whether anything but
    whitespace was read (an empty file versus a broken one)."""

    def __init__(self, raw: BinaryIO, max_bytes: int):
        self._raw = raw
        self._max_bytes = max_bytes
        self._pending = b""  # the start of a multi-byte sequence cut by the chunk boundary
        self._offset = 0  # bytes of the file passed on so far (BOM included)
        self._error: InvalidBytes | None = None
        self._started = False
        self.saw_content = False

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""  # ijson probes the stream type this way
        if self._error is not None:
            raise self._error
        size = 64 * 1024 if size is None or size < 0 else size
        while True:
            chunk = self._raw.read(size)
            if not self._started:
                chunk = self._drop_bom(chunk, size)
            self._check_size(len(chunk))
            data = self._pending + chunk
            valid = self._validate(data, final=not chunk)
            if valid or not chunk or self._error is not None:
                break
        if self._error is not None and not valid:
            raise self._error
        if not self.saw_content and valid.strip(_WHITESPACE):
            self.saw_content = True
        self._offset += len(valid)
        return valid

    def _drop_bom(self, chunk: bytes, size: int) -> bytes:
        while len(chunk) < len(_BOM):
            more = self._raw.read(size)
            if not more:
                break
            chunk += more
        self._started = True
        if chunk.startswith(_BOM):
            self._offset = len(_BOM)
            # An empty rest would read as the end of the file.
            return chunk[len(_BOM) :] or self._raw.read(size)
        return chunk

    def _check_size(self, length: int) -> None:
        if self._offset + len(self._pending) + length > self._max_bytes:
            raise InvalidBytes(f"the file is larger than the limit of {self._max_bytes:,} bytes")

    def _validate(self, data: bytes, *, final: bool) -> bytes:
        """Return the leading part of ``data`` that is valid; keep an incomplete
        trailing sequence for the next chunk; remember an error for the next read."""
        try:
            _, consumed = codecs.utf_8_decode(data, "strict", final)
        except UnicodeDecodeError as exc:
            bad = data[exc.start : exc.start + 4]
            return self._fail(
                data,
                exc.start,
                f"the file is not valid UTF-8: byte {self._offset + exc.start:,} of the file "
                f"({bad.hex(' ')}) is {exc.reason}",
            )
        if not final:
            consumed = _before_trailing_backslashes(data, consumed)
        if data.find(b"\\ud", 0, consumed) >= 0 or data.find(b"\\uD", 0, consumed) >= 0:
            for match in _SURROGATE_ESCAPE.finditer(data, 0, consumed):
                if not match.group(1):
                    continue
                if not final and match.end() + 6 > consumed:  # its low half may be in the next chunk
                    consumed = match.start()
                    break
                escape = data[match.start(1) - 2 : match.end(1)].decode()
                return self._fail(
                    data,
                    match.start(1) - 2,
                    f"a lone surrogate escape ({escape}) at byte {self._offset + match.start(1) - 2:,} of the "
                    "file: it is not a character",
                )
        self._pending = data[consumed:]
        return data[:consumed]

    def _fail(self, data: bytes, position: int, message: str) -> bytes:
        self._error = InvalidBytes(message)
        self._pending = b""
        return data[:position]


def _before_trailing_backslashes(data: bytes, end: int) -> int:
    """Where to cut ``data[:end]`` so that an escape cut by the chunk boundary (its
    backslash is in the last 6 bytes) stays whole, with its run of backslashes."""
    cut = data.rfind(b"\\", max(0, end - _ESCAPE_LENGTH), end)
    if cut < 0:
        return end
    while cut > 0 and data[cut - 1] == 0x5C:
        cut -= 1
    return cut
