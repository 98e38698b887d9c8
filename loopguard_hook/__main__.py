import _signal  # type: ignore[import-not-found]

# As the `loopguard-hook` script does: a SIGINT waits until `main` can answer it.
if hasattr(_signal, "pthread_sigmask"):
    _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT})

from .entry import main  # noqa: E402

raise SystemExit(main())
