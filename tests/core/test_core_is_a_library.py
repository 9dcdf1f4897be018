"""guardtui.core never imports Textual or aiohttp: it is a plain library."""
import subprocess
import sys


def test_importing_every_core_module_loads_neither_textual_nor_aiohttp():
    code = (
        "import importlib, pkgutil, sys\n"
        "import guardtui.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'guardtui.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(sorted(m for m in ('textual', 'aiohttp') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
