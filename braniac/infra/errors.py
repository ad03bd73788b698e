"""The errors a braniac user is meant to see.

    BraniacError                 anything the CLI prints as one clean line
    ├── VaultNotFound            no vault at the given path, or none found upward
    ├── VaultExists              `init` into a non-empty folder without --force
    ├── ConfigError              braniac.toml or an environment setting is invalid
    ├── NoteError                a note cannot be read or is malformed (names file and line)
    │   └── UnsafePath           a path (or symlink) that leaves the vault
    ├── STMError                 short_term.md is unreadable or its structure is broken
    ├── LockBusy                 another braniac process holds a lock we could not wait for
    ├── ReadOnlyFile             a file or folder the person made read-only: braniac will not replace it
    ├── IndexError_              the search index could not be used or rebuilt
    ├── ModelError               the LLM (or the offline engine) failed in a way a person can act on
    └── InputError               bad input given on the command line or through the API

The CLI turns each into one line on stderr and a non-zero exit; BRANIAC_DEBUG=1 shows the
traceback. Anything else escaping is a bug.
"""


class BraniacError(Exception):
    """Base of every error braniac reports to a person."""


class VaultNotFound(BraniacError):
    pass


class VaultExists(BraniacError):
    pass


class ConfigError(BraniacError):
    pass


class NoteError(BraniacError):
    pass


class UnsafePath(NoteError):
    pass


class STMError(BraniacError):
    pass


class LockBusy(BraniacError):
    pass


class ReadOnlyFile(BraniacError):
    """A file (or its folder) that a person made read-only: braniac leaves it as it is."""


class IndexError_(BraniacError):
    pass


class ModelError(BraniacError):
    pass


class InputError(BraniacError):
    pass
