"""Project exceptions: errors a user can cause, each with a message that says what to do."""


class MobileR1Error(Exception):
    """Base of every error a user can cause; the CLI prints its message without a traceback."""


class ActionError(MobileR1Error, ValueError):
    """An action or its arguments are invalid; the message names the bad field."""


class DataError(MobileR1Error, ValueError):
    """A data record is malformed; the message names the file, the line and the field when known."""


class ConfigError(MobileR1Error, ValueError):
    """A configuration file or option is invalid."""


class EnvError(MobileR1Error, RuntimeError):
    """A phone (simulated, a device, a remote server) could not do what was asked; the message says what failed."""


class CapabilityError(ConfigError):
    """A phone backend lacks an optional capability something needs (forking for GRPO groups, an expert plan, ...)."""


class InfraError(EnvError):
    """The phone's infrastructure failed (a device gone, a server erroring, restarting or timing out): the episode is
    not the agent's failure. Evaluation records it apart from the judged episodes and `--resume` plays it again."""


class ServiceError(MobileR1Error, RuntimeError):
    """A service a run depends on (a generation server) refused a request or did not answer; the message names it
    and says what to check."""
