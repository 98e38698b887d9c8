import _signal  # type: ignore[import-not-found]

# As the `loopguard-hook` script does: a SIGINT waits until `main` can answer it.
if hasattr(_signal, "pthread_sigmask"):
    _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT})

from .entry import main  # noqa: E402

code = main()
# Answered: a SIGINT now would kill the exit (Python's shutdown gives SIGINT back its default
# action), and a host that reads a killed hook as a denial would deny the call just allowed.
_signal.signal(_signal.SIGINT, _signal.SIG_IGN)
raise SystemExit(code)
