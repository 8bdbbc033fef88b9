"""Errors a user may see. Each names what went wrong and where."""


class CannNbError(Exception):
    """Base class of cann_nb's own errors."""


class TraceFormatError(CannNbError, ValueError):
    """A trace or profile folder could not be read.

    ``path`` is the file, ``where`` the place in it (line, row, event index, table),
    ``expected`` what the reader wanted to find there.
    """

    def __init__(self, path, where: str = "", expected: str = "", detail: str = ""):
        self.path = str(path)
        self.where = where
        self.expected = expected
        self.detail = detail
        parts = [self.path]
        if where:
            parts.append(f"at {where}")
        msg = ": ".join([" ".join(parts)] + ([f"expected {expected}"] if expected else []))
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)

    def __reduce__(self):  # survive pickling across the processes of a parallel import
        return (type(self), (self.path, self.where, self.expected, self.detail))


class ProfileValidationError(CannNbError, ValueError):
    """A Profile's tables break the contract in DESIGN.md (missing column, wrong dtype, bad value)."""


class StoreError(CannNbError, OSError):
    """The session store could not read or write a profile; the store itself is left intact."""


class CollectorUnavailable(CannNbError, RuntimeError):
    """A collector cannot run here (no torch, no device); the message says why."""


class ProfileNotFound(CannNbError, LookupError):
    """What a user typed names no profile: not a file or folder, and not a name in the store.

    ``what`` is what was typed, ``root`` the store searched, ``stored`` the names it holds.
    """

    def __init__(self, what, root=None, stored=(), detail: str = ""):
        self.what, self.root, self.stored = str(what), root, list(stored)
        super().__init__(detail or f"no profile {self.what!r}: not a file or folder, and not a name in the store "
                                   f"{root} (stored: {', '.join(self.stored) or 'none'})")


class NotOneProfile(CannNbError, ValueError):
    """One profile was needed but what was typed names several: a multi-rank group or a whole store;
    the message names one of them to give instead."""


class InputError(CannNbError, ValueError):
    """Bad input typed by a user (a limit, a size, a flag's value): the message names the bad token."""
