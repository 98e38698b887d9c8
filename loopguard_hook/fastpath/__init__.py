"""The resident fast path: a thin client in the hook process and a helper that stays loaded.

`client` is imported by the console script on every hook event and imports almost nothing
(`os`, `sys`, `marshal`, `_socket`, `_blake2`: each already loaded by the interpreter or a
built-in). `helper` is the long-lived process; it is never imported by the hook path or by the
operator commands. `confined` is the client of a sandboxed hook (DSH's), whose helper lives in
its workspace and inside the same sandbox.
"""
