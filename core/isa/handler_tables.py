"""Tables from mnemonics or encoding families to the code that handles them, filled by
decorators. Each engine tier keeps its own tables (its handlers differ) and fills them the
same way.

Holds these invariants: registering puts the very function under every key given, so the last
registration of a key wins and a function stays callable under its own name; a mnemonic's
own entry is found before its encoding family's.
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


def find(handlers, families, inst):
    """What handles `inst` in a tier's tables: its mnemonic's own entry, else what its
    encoding family's factory makes of it; None where neither has it."""
    fn = handlers.get(inst.mnemonic)
    if fn is not None:
        return fn
    factory = families.get(inst.encoding)
    return factory(inst) if factory is not None else None


def fill(table, operations, factories):
    """File under each mnemonic of `operations` ((mnemonic, kind, args, kwargs) rows, as
    core.isa.semantics.lds.memory_operations gives them) what the tier's factory of that
    kind makes of args and kwargs."""
    for mnemonic, kind, args, kwargs in operations:
        table[mnemonic] = factories[kind](*args, **kwargs)
