"""`nvfuser`: an alias of `nvfuser_direct`, so repro scripts that begin with
`from nvfuser import FusionDefinition, DataType` run unchanged."""

from nvfuser_direct import *  # noqa: F401,F403
from nvfuser_direct import __all__, __version__, version  # noqa: F401
