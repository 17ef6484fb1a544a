"""The module's surface: every public name is in the type stub with the
same fields and methods, everything public has a docstring, and the
linked library's version is the command's."""

import ast
import os

import perfdiff

STUB = os.path.join(os.path.dirname(perfdiff.__file__), "__init__.pyi")


def stub_classes():
    tree = ast.parse(open(STUB).read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)} | \
                {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            out[node.name] = None
    return out


def test_stub_matches_module():
    stub = stub_classes()
    public = set(perfdiff.__all__)
    assert public - set(stub) == set()
    for name in public:
        obj = getattr(perfdiff, name)
        if hasattr(obj, "__match_args__"):       # a record: its fields
            assert set(obj.__match_args__) == stub[name] - {"__match_args__"}, name
        elif isinstance(obj, type) and not issubclass(obj, BaseException | Warning):
            methods = {m for m in dir(obj) if not m.startswith("_")}
            assert methods == stub[name] - {"__init__", "__next__", "__enter__", "__exit__"}, name


def test_docstrings():
    for name in perfdiff.__all__:
        obj = getattr(perfdiff, name)
        assert obj.__doc__, name
        if isinstance(obj, type) and not issubclass(obj, BaseException | Warning):
            for m in dir(obj):
                if not m.startswith("_"):
                    assert getattr(obj, m).__doc__, f"{name}.{m}"
    assert perfdiff.__doc__ and perfdiff.samples.__doc__


def test_version(cli_out):
    assert perfdiff.__version__ == perfdiff.library_version()
    assert perfdiff.library_version() in cli_out("--version")
