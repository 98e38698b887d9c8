"""Facts `core/tools.py` reads from a call and its result."""

from __future__ import annotations

from loopguard_hook.config.settings import Config
from loopguard_hook.core.tools import is_noop_mutation, named_path, place_of

#: Claude Code 2.1.332's PostToolUse `tool_response` of a Write of an existing file
#: (payloads/claude-code/2.1.332/PostToolUse.Write.json has the `create` form).
TEXT = "one\ntwo\n"


def _update(original: str | None, content: str) -> dict[str, object]:
    return {"type": "update", "filePath": "/p/todo.txt", "content": content, "structuredPatch": [], "originalFile": original}


def test_a_write_of_the_text_the_file_held_changed_nothing() -> None:
    assert is_noop_mutation("Write", {"file_path": "/p/todo.txt", "content": TEXT}, _update(TEXT, TEXT))
    assert not is_noop_mutation("Write", {"file_path": "/p/todo.txt", "content": TEXT}, _update("one\n", TEXT))
    # a new file: `originalFile` is null
    create = {**_update(None, TEXT), "type": "create"}
    assert not is_noop_mutation("Write", {"file_path": "/p/todo.txt", "content": TEXT}, create)


def test_what_was_written_is_the_results_content() -> None:
    """Claude Code may write other text than the model sent (corpus session 1fb5e404: a memory
    file given an `originSessionId:` line): the file held the model's text, the write changed it."""
    sent = "---\nname: notes\n---\n"
    written = "---\nname: notes\noriginSessionId: 1fb5e404\n---\n"
    assert not is_noop_mutation("Write", {"file_path": "/p/m.md", "content": sent}, _update(sent, written))
    assert is_noop_mutation("Write", {"file_path": "/p/m.md", "content": sent}, _update(written, written))
    # a result without its content: the input's
    assert is_noop_mutation("Write", {"file_path": "/p/m.md", "content": sent}, {"type": "update", "originalFile": sent})


def test_other_tools_and_shapes_are_no_evidence() -> None:
    for tool in ("Edit", "write", "write_file", "Create"):
        assert not is_noop_mutation(tool, {"file_path": "/p/todo.txt", "content": TEXT}, _update(TEXT, TEXT))
    assert not is_noop_mutation("Write", {"file_path": "/p/todo.txt", "content": TEXT}, "File written")
    assert not is_noop_mutation("Write", None, _update(TEXT, TEXT))
    assert not is_noop_mutation("Write", {"file_path": "/p/todo.txt"}, {"type": "update", "originalFile": None})


def test_where_a_file_is_is_its_path_resolved_in_the_sessions_folder() -> None:
    """`place_of`: a file or patch tool's path (`named_path`), resolved in the session's folder;
    none for a shell command (its own shell's folder may differ) or a path that cannot be resolved."""
    config = Config()

    def place(tool: str, tool_input: dict[str, str], cwd: str | None) -> str | None:
        return place_of(tool, named_path(tool_input, config), cwd)

    edit = {"file_path": "packages/api/src/../src/index.ts"}
    assert place("Edit", edit, "/w") == "/w/packages/api/src/index.ts"
    assert place("Edit", {"file_path": "/w/a.py"}, None) == "/w/a.py"
    assert place("Edit", edit, None) is None  # relative, and no folder
    assert place("Edit", {"file_path": "C:\\w\\A.py"}, None) == "c:/w/a.py"  # by its drive
    assert place("Edit", {"file_path": "pk\\a.py"}, "C:\\w") == "c:/w/pk/a.py"
    # written one way: case, a doubled leading slash, macOS's /private/tmp
    assert place("Edit", {"file_path": "//Users/Me/P/a.py"}, None) == "/users/me/p/a.py"
    assert place("Edit", {"file_path": "/private/tmp/p/a.py"}, None) == "/tmp/p/a.py"
    assert place("Edit", {"file_path": "~/a.py"}, "/w") is None
    patch = {"command": "*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** End Patch"}
    assert place("apply_patch", patch, "/w") == "/w/src/a.py"
    assert place("Bash", {"command": "sed -i 's/a/b/' src/a.py"}, "/w") is None
    assert place("Bash", {"command": "apply_patch <<'EOF'\n" + patch["command"] + "\nEOF"}, "/w") is None
    assert place("Grep", {"pattern": "x"}, "/w") is None
