"""settings.yaml `llm:` and GUARDTUI_LLM_*: the guard agent is off until configured, the default
mode once it is; every bad value is one line naming the file and field, or the variable."""
from __future__ import annotations

import pytest

from guardtui.core.llm import LLMSettings, load_llm_settings
from guardtui.core.yamlfile import DataError


def test_off_until_an_endpoint_and_a_model_are_given(tmp_path):
    path = tmp_path / "settings.yaml"
    assert load_llm_settings(path, {}) is None
    assert load_llm_settings(path, {"GUARDTUI_LLM_MODEL": "m"}) is None
    settings = load_llm_settings(path, {"GUARDTUI_LLM_MODEL": "m", "GUARDTUI_LLM_BASE_URL": "http://h:1/v1/"})
    assert settings == LLMSettings("http://h:1/v1", "m", None, 20.0, "agent", 5, 600)
    assert settings.endpoint == "http://h:1/v1/chat/completions"


def test_the_file_and_the_variables(tmp_path):
    path = tmp_path / "settings.yaml"
    path.write_text("llm:\n  base_url: http://127.0.0.1:11434/v1\n  model: qwen2.5-coder:7b\n  api_key_env: MY_KEY\n"
                    "  mode: single\n  max_turns: 3\n  timeout_s: 8\n  max_tokens: 300\n")
    settings = load_llm_settings(path, {"MY_KEY": "k"})
    assert settings == LLMSettings("http://127.0.0.1:11434/v1", "qwen2.5-coder:7b", "k", 8.0, "single", 3, 300)
    overridden = load_llm_settings(path, {"GUARDTUI_LLM_MODE": "agent", "GUARDTUI_LLM_MAX_TURNS": "7",
                                          "GUARDTUI_LLM_TIMEOUT_S": "2.5", "GUARDTUI_LLM_API_KEY": "k2"})
    assert (overridden.mode, overridden.max_turns, overridden.timeout_s, overridden.api_key) == ("agent", 7, 2.5, "k2")


@pytest.mark.parametrize("body,message", [
    ("llm: {base_url: x}\n", "settings.yaml:1: llm: missing required key 'model'"),
    ("llm: {base_url: x, model: m, mode: multi}\n", "llm.mode: 'multi' is not one of agent, single"),
    ("llm: {base_url: x, model: m, max_turns: 0}\n", "llm.max_turns: must be from 1 to 20"),
    ("llm: {base_url: x, model: m, max_turns: 2.5}\n", "llm.max_turns: must be a number, not"),
    ("llm: {base_url: x, model: m, timeout_s: -1}\n", "llm.timeout_s: must be more than 0"),
    ("llm: {base_url: x, model: m, temperature: 0}\n", "llm.temperature: unknown key"),
])
def test_a_bad_file_value_is_one_line(tmp_path, body, message):
    path = tmp_path / "settings.yaml"
    path.write_text(body)
    with pytest.raises(DataError, match=message.replace("(", r"\(")):
        load_llm_settings(path, {})


@pytest.mark.parametrize("variable,value,message", [
    ("GUARDTUI_LLM_MODE", "fast", "GUARDTUI_LLM_MODE: 'fast' is not one of agent, single"),
    ("GUARDTUI_LLM_MAX_TURNS", "many", "GUARDTUI_LLM_MAX_TURNS: 'many' is not a whole number"),
    ("GUARDTUI_LLM_MAX_TURNS", "99", "GUARDTUI_LLM_MAX_TURNS: must be at most 20"),
    ("GUARDTUI_LLM_TIMEOUT_S", "0", "GUARDTUI_LLM_TIMEOUT_S: must be more than 0"),
    ("GUARDTUI_LLM_TIMEOUT_S", "nan", "GUARDTUI_LLM_TIMEOUT_S: must be more than 0"),
])
def test_a_bad_variable_is_one_line_naming_it(tmp_path, variable, value, message):
    env = {"GUARDTUI_LLM_BASE_URL": "http://x/v1", "GUARDTUI_LLM_MODEL": "m", variable: value}
    with pytest.raises(DataError) as caught:
        load_llm_settings(tmp_path / "none.yaml", env)
    assert str(caught.value) == message


def test_a_broken_settings_file_turns_the_guard_agent_off_with_one_line(isolated_env, capsys):
    from guardtui.core.config import Locations
    from guardtui.wiring import llm_settings

    locations = Locations.from_env()
    locations.config_dir.mkdir(parents=True)
    locations.settings_file.write_text("llm: {model: m}\n")
    assert llm_settings(locations) is None
    err = capsys.readouterr().err
    assert "settings.yaml:1: llm: missing required key 'base_url'" in err and "guard agent is off" in err
    assert err.count("\n") == 1
