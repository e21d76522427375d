"""The one registry style: names, built-in modules on first use, `package.module:Name` paths, clear errors."""

from __future__ import annotations

import sys
import textwrap

import pytest

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.registry import Registry, is_import_path


def test_import_paths_are_told_from_builtin_specs_with_arguments() -> None:
    assert is_import_path("mypkg.phone:Backend")
    assert is_import_path("a.b.c:Outer.Inner")
    for spec in ("sim", "adb:emulator-5554", "adb:127.0.0.1:5555", "androidworld:http://127.0.0.1:5000",
                 "hf:tiny-lm", "hf:Qwen/Qwen2.5-VL-3B-Instruct", "openai:gpt4o", "mypkg:Backend"):
        assert not is_import_path(spec), spec


def test_register_get_and_names() -> None:
    reg: Registry[object] = Registry("thing")
    marker = object()
    reg.register("Alpha", marker)
    assert reg.get("alpha") is marker and reg.get(" ALPHA ") is marker
    assert reg.names() == ["alpha"] and "Alpha" in reg
    with pytest.raises(ConfigError, match="already registered"):
        reg.register("alpha", object())
    reg.register("alpha", marker)  # the same factory again is no conflict (a module imported twice)
    with pytest.raises(ConfigError, match="no colon"):
        reg.register("a:b", marker)
    with pytest.raises(ConfigError, match=r"unknown thing 'beta'; known: alpha"):
        reg.get("beta")


def test_builtin_module_is_imported_on_first_lookup_and_paths_import_third_party_code(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "thirdparty_reg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "things.py").write_text(textwrap.dedent("""
        from tests_registry_holder import REG
        class Widget:
            pass
        REG.register("widget", Widget)
    """))
    holder = tmp_path / "tests_registry_holder.py"
    holder.write_text("from mobile_r1.core.registry import Registry\nREG = Registry('thing', builtin={'widget': 'thirdparty_reg.things'})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import tests_registry_holder

    reg = tests_registry_holder.REG
    assert "thirdparty_reg.things" not in sys.modules
    assert reg.names() == ["widget"]
    widget = reg.get("widget")
    assert widget.__name__ == "Widget" and "thirdparty_reg.things" in sys.modules
    assert reg.get("thirdparty_reg.things:Widget") is widget
    with pytest.raises(ConfigError, match="has no attribute 'Gadget'"):
        reg.get("thirdparty_reg.things:Gadget")
    with pytest.raises(ConfigError, match="cannot import 'thirdparty_reg.missing'"):
        reg.get("thirdparty_reg.missing:Widget")
