"""Text from outside braniac (a terminal, a file, a model) made safe: to take in as text
(`checked_text`) and to print on a terminal (`printable`, the one helper every output of
the CLI, the chat and the notices goes through)."""
from __future__ import annotations

import re

from .errors import InputError

# What must never reach a terminal from memory or a model: C0 controls but tab and newline
# (ESC starts CSI and OSC sequences: clear screen, retitle, OSC 52 clipboard writes), DEL, C1
# (U+009B is a CSI of its own), and lone surrogates (undecodable bytes in a file name).
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def without_controls(text: str) -> str:
    """Text to write into memory, each control character but tab and newline made a space: a
    NUL makes a note a "binary file" every later read refuses, an ESC acts on a terminal."""
    return _CONTROLS.sub(" ", str(text))


def printable(text: str) -> str:
    """Text to print on a terminal: every control character but newline and tab shown as a
    visible escape (`\\x1b`), a carriage return dropped (it would let text overwrite a line),
    undecodable bytes shown as `\\xNN`. What a person reads stays, what a terminal obeys goes."""
    def visible(match: re.Match) -> str:
        code = ord(match.group())
        if code == 0x0D:
            return ""
        if 0xDC80 <= code <= 0xDCFF:          # a byte os.fsdecode could not decode
            return f"\\x{code - 0xDC00:02x}"
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return _UNPRINTABLE.sub(visible, str(text))


def checked_text(text: str, what: str = "text") -> str:
    """Text from outside (a prompt, a query, words to remember) as braniac can store and search
    it; InputError for a NUL byte or undecodable bytes, never taken for a damaged file."""
    if "\x00" in text:
        raise InputError(f"{what} contains a NUL byte; braniac takes text only")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{what} is not valid UTF-8 (check the terminal's encoding)") from None
    return text
