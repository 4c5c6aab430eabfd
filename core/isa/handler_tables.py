"""Tables from mnemonics or encoding families to the code that handles them, filled by
decorators. Each engine tier keeps its own tables (its handlers differ) and fills them the
same way.

Holds one invariant: registering puts the very function under every key given, so the last
registration of a key wins and a function stays callable under its own name.
"""


def registrar(table):
    """The decorator factory of `table`: @registrar(T)("a", "b") files the function under
    "a" and "b"."""
    def keys(*names):
        def register(fn):
            for name in names:
                table[name] = fn
            return fn
        return register
    return keys
