"""The bytes the JSON parser reads: strict UTF-8 and no lone surrogate escape, whatever
the chunk boundaries, and no more than the size limit."""

import io

import pytest

from annotation.corpus_io.checked_stream import CheckedStream, InvalidBytes


class Trickle(io.RawIOBase):
    """A file that hands out at most ``step`` bytes per read, as a slow socket would."""

    def __init__(self, data: bytes, step: int):
        self.data, self.step, self.at = data, step, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self.data[self.at : self.at + min(self.step, size if size > 0 else self.step)]
        self.at += len(chunk)
        return chunk


def read_all(data: bytes, step: int, max_bytes: int = 10**6) -> bytes:
    stream, out = CheckedStream(Trickle(data, step), max_bytes), []
    while chunk := stream.read(5):
        out.append(chunk)
    return b"".join(out)


STEPS = (1, 2, 3, 5, 7, 11, 13, 64)


@pytest.mark.parametrize("step", STEPS)
def test_valid_text_passes_unchanged_whatever_the_chunks(step):
    data = '["é €😀", "\\ud83d\\ude00", "C:\\\\ud800", "\\\\\\ud83d\\udE00"]'.encode()
    assert read_all(data, step) == data


@pytest.mark.parametrize("step", STEPS)
def test_a_bom_is_dropped_whatever_the_chunks(step):
    assert read_all(b"\xef\xbb\xbf[1]", step) == b"[1]"


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize(
    "data, culprit",
    [
        (b'["ok", "caf\xe9"]', "byte 11 of the file (e9 22"),
        (b'["\xed\xa0\x80"]', "byte 2 of the file"),
        (b'["ok"]\xe2\x82', "byte 6 of the file (e2 82) is unexpected end of data"),
        (b'["a\\ud800"]', "lone surrogate escape (\\ud800) at byte 3"),
        (b'["a\\ud800\\u0041"]', "lone surrogate escape (\\ud800) at byte 3"),
        (b'["a\\uDC00"]', "lone surrogate escape (\\uDC00) at byte 3"),
        (b'["\\\\\\udc00"]', "lone surrogate escape (\\udc00) at byte 4"),
        (b'["\\ud83d\\ude00\\udc00"]', "lone surrogate escape (\\udc00) at byte 14"),
    ],
)
def test_invalid_bytes_are_refused_after_handing_out_everything_before_them(step, data, culprit):
    stream, passed = CheckedStream(Trickle(data, step), 10**6), b""
    with pytest.raises(InvalidBytes) as caught:
        while chunk := stream.read(5):
            passed += chunk
    assert culprit in str(caught.value)
    offset = int(str(caught.value).split("byte ")[1].split(" ")[0])
    assert passed == data[:offset]
