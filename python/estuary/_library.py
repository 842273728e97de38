"""libestuary, loaded once, and the checks every object of the package calls it through:
statuses into exceptions, names into enum values, sizes and handles refused before C sees them."""

import operator

from . import _capi
from ._errors import BY_STATUS, EstuaryError, InvalidArgument, InvalidHandleError

lib = _capi.load()


def check(status):
    if status != _capi.OK:
        fail(status)


def fail(status):
    """Raises the exception of a failed call's `status`, with estuary's message for it."""
    message = lib.estuary_last_error().decode("utf-8", "replace")
    raise BY_STATUS.get(status, EstuaryError)(message, status)


def choice(table, value, what):
    if value not in table:
        raise InvalidArgument(f"{what} {value!r} is not one of {', '.join(map(repr, table))}",
                              _capi.ERROR_INVALID_ARGUMENT)
    return table[value]


def colormap(value):
    """A colormap as estuary.h numbers it: a built-in one's name, or the int a viewer's
    create_colormap returned."""
    if isinstance(value, str):
        return choice(_capi.COLORMAP, value, "colormap")
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31:
        return value
    raise InvalidArgument(f"colormap {value!r} is neither a name ({', '.join(map(repr, _capi.COLORMAP))}) "
                          "nor a value create_colormap returned", _capi.ERROR_INVALID_ARGUMENT)


def text(value):
    return value.encode() if isinstance(value, str) else value


def sizes(shape, what, high, c_type):
    """`shape` as a tuple of ints, each 1 to `high` (its C type's range), or InvalidArgument
    naming the shape, the size and the range: ctypes would wrap them without a word."""
    try:
        values = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise InvalidArgument(f"{what} {tuple(shape)!r}: integer sizes are needed") from None
    for value in values:
        if not 1 <= value <= high:
            raise InvalidArgument(f"{what} {values}: size {value} is outside 1 to {high} (the C "
                                  f"API's {c_type})")
    return values


def in_use(owner, handle, what):
    """`handle` of an object of `owner`'s (a Viewer) while both are alive; InvalidHandleError
    naming `what` once the object was destroyed or the viewer closed."""
    if owner._handle is None:
        raise InvalidHandleError(f"{what} belongs to a viewer that was closed")
    if handle is None:
        raise InvalidHandleError(f"{what} was destroyed")
    return handle


def as_dict(struct):
    """A struct's fields by name, its struct_size left out."""
    return {name: getattr(struct, name) for name in field_names(type(struct))}


def field_names(cls):
    """The names of a struct class's fields, struct_size left out (worked out once a class)."""
    names = cls.__dict__.get("_field_names")
    if names is None:
        names = tuple(name for name, _ in cls._fields_ if name != "struct_size")
        cls._field_names = names
    return names
