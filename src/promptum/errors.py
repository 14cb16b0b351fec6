"""The exceptions promptum raises for problems a user can fix.

Exception tree::

    PromptumError                 anything a user can cause and fix
    ├── ConfigError               a suite, check definition or option is invalid
    │   └── PluginError           a plugin (check type, report format, provider) is unusable
    ├── ProviderUnavailableError  a model cannot be used as configured (missing key or extra)
    └── StoreError                the run store cannot be opened, or a run is not in it

Provider call failures (rate limits, timeouts, server errors) are not raised to the user:
they become the ``error`` of a ``Completion`` so a run keeps the results it already has.
"""

from __future__ import annotations


class PromptumError(Exception):
    """Base class for every error a user can cause and fix."""


class ConfigError(PromptumError):
    """A suite, check definition or option is invalid."""


class ProviderUnavailableError(PromptumError):
    """A model cannot be used as configured: a key, server or optional extra is missing."""


class StoreError(PromptumError):
    """The run store cannot be opened, or a run asked for is not in it."""


class PluginError(ConfigError, ValueError):
    """A plugin cannot be used: its message names the plugin, the hook and the reason.

    A ValueError too, so that a plugin check type found while a suite is validated is
    reported at the file, line and field that named it.
    """
