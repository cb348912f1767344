"""Which config, settings and switches a definition or a call runs with:
fusebox's own keywords (config=, settings=, disable_passes=,
disable_schedulers=, dump=) and nvFuser's _enable_options /
_disable_options, turned into the extension's _RunSettings."""

import json
import os

from . import _fusebox


def _toml_value(value, key):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, key) for v in value) + "]"
    raise _fusebox.FuseboxError(
        f"setting {key}: a Python {type(value).__qualname__} is not a TOML value "
        "(expected a bool, number, string or list)"
    )


def _flatten(table, prefix=""):
    """{"schedulers": {"pointwise": {"unroll": 2}}} -> ["schedulers.pointwise.unroll=2"]"""
    out = []
    for key, value in table.items():
        if not isinstance(key, str):
            raise _fusebox.FuseboxError(f"setting keys are strings, got {key!r}")
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out += _flatten(value, path + ".")
        else:
            out.append(f"{path}={_toml_value(value, path)}")
    return out


def _names(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        names = list(value)
    except TypeError:
        raise _fusebox.FuseboxError(f"{what}: expected a name or a list of names, got {value!r}")
    for n in names:
        if not isinstance(n, str):
            raise _fusebox.FuseboxError(f"{what}: expected names (strings), got {n!r}")
    return names


class Settings:
    """A config file or dict, settings, and disabled passes/schedulers and dumps."""

    def __init__(self, config=None, settings=None, disable_passes=None, disable_schedulers=None,
                 dump=None):
        self.config_file = ""
        self.settings = []
        if isinstance(config, (str, os.PathLike)):
            self.config_file = os.path.abspath(os.fspath(config))
        elif isinstance(config, dict):
            # A dict is read as the default config with these keys set over it.
            self.settings += _flatten(config)
        elif config is not None:
            raise _fusebox.FuseboxError(
                f"config: expected a TOML file path or a dict, got a Python {type(config).__qualname__}"
            )
        if settings is not None:
            if isinstance(settings, dict):
                self.settings += _flatten(settings)
            else:
                self.settings += _names(settings, "settings")
        self.disabled_passes = _names(disable_passes, "disable_passes")
        self.disabled_schedulers = _names(disable_schedulers, "disable_schedulers")
        self.dumps = _names(dump, "dump")

    def over(self, other):
        """These settings, with `other`'s added after them (a call's over its definition's)."""
        s = Settings()
        s.config_file = other.config_file or self.config_file
        s.settings = self.settings + other.settings
        s.disabled_passes = self.disabled_passes + other.disabled_passes
        s.disabled_schedulers = self.disabled_schedulers + other.disabled_schedulers
        s.dumps = self.dumps + other.dumps
        return s

    def with_nvfuser_options(self, enable, disable):
        """_enable_options name dumps ("kernel_source", "segmented_fusion"; any
        [dump] option); _disable_options name passes or schedulers as
        "pass:NAME" / "scheduler:NAME", or a [runtime] switch (as FUSEBOX_DISABLE)."""
        s = self.over(Settings())
        s.dumps += _names(enable, "_enable_options")
        for name in _names(disable, "_disable_options"):
            if name.startswith("pass:"):
                s.disabled_passes.append(name[5:])
            elif name.startswith("scheduler:"):
                s.disabled_schedulers.append(name[10:])
            else:
                s.settings.append(f"runtime.{name}=false")
        return s

    def native(self):
        return _fusebox._RunSettings(self.config_file, self.settings, self.disabled_passes,
                                     self.disabled_schedulers, self.dumps)
