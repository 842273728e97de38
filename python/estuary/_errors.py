"""The exceptions of the estuary package, one per estuary_status (estuary.h), all EstuaryError.

Kept apart from __init__ so that _capi's structs can raise InvalidArgument for a value that does
not fit its C type before anything reaches C.
"""

# estuary_status values (estuary.h)
RUNTIME, INVALID_ARGUMENT, UNSUPPORTED, NOT_READY = 1, 2, 3, 4
OUT_OF_MEMORY, DEVICE_LOST, TIMEOUT, INVALID_HANDLE = 5, 6, 7, 8


class EstuaryError(Exception):
    """A failed call; `status` is the C API's estuary_status (also the app's exit codes)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class InvalidArgument(EstuaryError, ValueError):
    """The arguments are wrong: the message names the value and what is allowed. Nothing was
    changed."""

    def __init__(self, message, status=INVALID_ARGUMENT):
        super().__init__(message, status)


class Unsupported(EstuaryError):
    """This machine cannot do it (no GPU, display, extension or format)."""


class RuntimeFailure(EstuaryError, RuntimeError):
    """A failure while running: a CUDA fault, a file that could not be written."""


class OutOfMemoryError(EstuaryError, MemoryError):
    """GPU (or host) memory ran out for an allocation. The viewer is intact: free something, ask
    for less (smaller sizes, fewer frames in flight) and try again."""


class DeviceLostError(RuntimeFailure):
    """The GPU was lost (a fault, a hang, a driver reset) or the CUDA context is unusable: the
    viewer refuses further frames; close it and make a new one."""


class GpuTimeoutError(RuntimeFailure):
    """A bounded wait for the GPU ran out (ESTUARY_WAIT_TIMEOUT_S sets the bound): the viewer
    refuses further frames; close it. (Not the builtin TimeoutError, an OSError.)"""


class InvalidHandleError(EstuaryError, ValueError):
    """A closed viewer, or a destroyed image, buffer or view, or an ended frame, was used (or an
    object of another viewer): nothing was changed. A ValueError, as a closed file's use is."""

    def __init__(self, message, status=INVALID_HANDLE):
        super().__init__(message, status)


class NotReady(EstuaryError):
    """A result asked for before it exists: a Pick whose frame is not drawn yet."""

    def __init__(self, message, status=NOT_READY):
        super().__init__(message, status)


BY_STATUS = {RUNTIME: RuntimeFailure, INVALID_ARGUMENT: InvalidArgument,
             UNSUPPORTED: Unsupported, NOT_READY: NotReady, OUT_OF_MEMORY: OutOfMemoryError,
             DEVICE_LOST: DeviceLostError, TIMEOUT: GpuTimeoutError,
             INVALID_HANDLE: InvalidHandleError}
