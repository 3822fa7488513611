"""appliance.settings: TOML settings with defaults, strict keys and errors that name the file and the key."""

import re
from pathlib import Path

import pytest

from appliance import paths
from appliance.settings import (TEMPLATE_PATH, ConfigError, Section, Settings, config_path, load_settings,
                                settings_from_mapping)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "appliance.toml"
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, text))
    return str(caught.value)


def test_an_empty_file_gives_every_default(tmp_path):
    settings = load_settings(write(tmp_path, ""))
    assert settings.device.device == "cpu"
    assert settings.device.stt_compute_type == "int8"
    assert settings.device.llm_gpu_layers == 0
    assert settings.device.threads == 1
    assert (settings.models.stt, settings.models.tts, settings.models.llm) == ("whisper-base", "piper-joe",
                                                                              "smollm2-135m")
    assert settings.llm.classify is False and settings.llm.rephrase is False
    assert (settings.llm.rephrase_budget_ms, settings.llm.classify_budget_ms, settings.llm.max_tokens) == (600, 800, 48)
    assert settings.voice.silence_checkins_s == (10, 20, 40)
    assert settings.voice.sample_rate == 16000 and settings.voice.stt_beam_size == 1
    assert settings.paths.data_dir == paths.data_dir()
    assert settings.paths.database == paths.database_path()
    assert settings.paths.clinic == paths.clinic_path()
    assert settings.paths.flow == paths.flow_path()
    assert settings.models_dir == paths.data_dir() / "models"
    assert settings.source == tmp_path / "appliance.toml"


def test_the_template_loads_to_the_defaults():
    assert load_settings(TEMPLATE_PATH).model_dump() == Settings().model_dump()


def test_the_template_shows_every_key_with_a_comment_line_above_it():
    lines = TEMPLATE_PATH.read_text().splitlines()
    for section_name, field in Settings.model_fields.items():
        section = field.annotation
        assert f"[{section_name}]" in lines, f"[{section_name}] is missing from {TEMPLATE_PATH.name}"
        start = lines.index(f"[{section_name}]")
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
        body = lines[start + 1:end]
        for key in section.model_fields:
            at = [i for i, line in enumerate(body) if re.match(rf"^#? ?{key} = ", line)]
            assert at, f"{section_name}.{key} is missing from {TEMPLATE_PATH.name}"
            comment = body[at[0] - 1]
            assert comment.startswith("# ") and " = " not in comment.split("(")[0], f"{section_name}.{key} needs a comment"


def test_errors_name_the_file_and_the_key_path(tmp_path):
    message = error_of(tmp_path, "[voice]\nsilence_checkins_s = [10, -5, 40]\n")
    assert message == f"{tmp_path / 'appliance.toml'}: voice.silence_checkins_s[1]: must be greater than 0"


def test_check_ins_must_grow(tmp_path):
    assert "voice.silence_checkins_s[2]: must be later" in error_of(tmp_path, "[voice]\nsilence_checkins_s = [10, 20, 15]")


@pytest.mark.parametrize("text, expected", [
    ("[voice]\nsilence_checkin = [1]\n", "voice.silence_checkin: unknown key (known keys: sample_rate,"),
    ("[telephony]\nport = 5060\n",
     "telephony: unknown section (known sections: device, models, llm, voice, sip, data, metrics, monitor, "
     "monitor_web, paths)"),
    ("[monitor]\nservices = [{name = 'north', socket = '/a.sock', address = '10.0.0.21:7443'}]\n",
     "monitor.services[0]: give the service either a socket"),
    ("[monitor]\nservices = [{name = 'north', socket = '/a.sock'}, {name = 'north', socket = '/b.sock'}]\n",
     "monitor.services[1].name: 'north' names two services"),
    ("[monitor]\nservices = [{name = 'north', address = '10.0.0.21'}]\n",
     "monitor.services[0].address: '10.0.0.21' must be a host and a port"),
    ("[monitor]\nservices = [{name = 'north', address = '10.0.0.21:7443'}]\n",
     "monitor.desk_certificate: must be set when a service is watched by address (services[0])"),
    ("[monitor]\nlisten = '10.0.0.21:7443'\n", "monitor.certificate: must be set when listen is"),
    ("[metrics]\nlisten = '9464'\n", "metrics.listen: '9464' must be an address and a port, e.g. \"127.0.0.1:9464\""),
    ("[metrics]\nlisten = 'localhost:9464'\n", "metrics.listen: 'localhost' is not an IP address"),
    ("[metrics]\nlisten = '127.0.0.1:70000'\n", "metrics.listen: '70000' is not a port (1 to 65535)"),
    ("[device]\ndevice = 'gpu'\n", "device.device: must be 'cpu' or 'cuda'"),
    ("[device]\nllm_gpu_layers = 20\n", 'device.llm_gpu_layers: must be 0 when device = "cpu"'),
    ("[voice]\nsample_rate = 22050\n", "voice.sample_rate: must be 8000 or 16000"),
    ("[llm]\nclassify_budget_ms = 0\n", "llm.classify_budget_ms: must be greater than 0"),
    ("[models]\nstt = ''\n", "models.stt: must not be empty"),
    ("voice = 3\n", "voice: must be a [voice] table of keys"),
    ("[voice\n", "not valid TOML"),
])
def test_bad_values_are_named(tmp_path, text, expected):
    message = error_of(tmp_path, text)
    assert message.startswith(str(tmp_path / "appliance.toml") + ": ")
    assert expected in message


def test_cuda_changes_the_unset_defaults_only(tmp_path):
    settings = load_settings(write(tmp_path, "[device]\ndevice = 'cuda'\n"))
    assert (settings.device.stt_compute_type, settings.device.llm_gpu_layers) == ("float16", -1)
    settings = load_settings(write(tmp_path, "[device]\ndevice = 'cuda'\nstt_compute_type = 'int8_float16'\n"
                                             "llm_gpu_layers = 12\n"))
    assert (settings.device.stt_compute_type, settings.device.llm_gpu_layers) == ("int8_float16", 12)


def test_relative_paths_are_taken_from_the_file_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("APPLIANCE_DB", raising=False)
    settings = load_settings(write(tmp_path, "[paths]\ndata_dir = 'data'\n[models]\ndata_dir = 'cache'\n"))
    assert settings.paths.data_dir == tmp_path / "data"
    assert settings.paths.database == tmp_path / "data" / "appliance.db"
    assert settings.models_dir == tmp_path / "cache"
    assert settings.relative_to_config("voices/x.onnx") == tmp_path / "voices" / "x.onnx"


def test_lookup_order(tmp_path, monkeypatch):
    monkeypatch.setenv("APPLIANCE_CONFIG", str(write(tmp_path, "[llm]\nmax_tokens = 7\n")))
    assert config_path() == tmp_path / "appliance.toml"
    assert load_settings().llm.max_tokens == 7
    monkeypatch.setenv("APPLIANCE_CONFIG", str(tmp_path / "absent.toml"))
    with pytest.raises(ConfigError, match=r"absent\.toml: no such settings file \(named by \$APPLIANCE_CONFIG\)"):
        load_settings()
    monkeypatch.delenv("APPLIANCE_CONFIG")
    expected = paths.ETC / "appliance.toml" if (paths.ETC / "appliance.toml").is_file() else TEMPLATE_PATH
    assert config_path() == expected


def test_settings_are_read_only_and_sections_are_strict():
    settings = settings_from_mapping({})
    with pytest.raises(Exception):
        settings.llm.max_tokens = 3
    assert all(issubclass(field.annotation, Section) for field in Settings.model_fields.values())


def test_tls_needs_its_certificate_and_key(tmp_path):
    message = error_of(tmp_path, '[sip]\ntransports = ["udp", "tls"]\n')
    assert "sip.tls_cert_file:" in message and "tls_cert_file and tls_key_file" in message
    message = error_of(tmp_path, '[sip]\ntransports = ["tls"]\ntls_cert_file = "a.crt"\n')
    assert "sip.tls_key_file: " in message


def test_tls_files_are_read_from_the_settings_files_folder(tmp_path):
    settings = load_settings(write(tmp_path, '[sip]\ntransports = ["tls"]\ntls_cert_file = "tls/a.crt"\n'
                                             'tls_key_file = "tls/a.key"\ntls_ca_file = "/etc/pbx.crt"\n'))
    sip = settings.sip
    assert (sip.tls_cert_file, sip.tls_key_file, sip.tls_ca_file) == (tmp_path / "tls/a.crt", tmp_path / "tls/a.key",
                                                                      Path("/etc/pbx.crt"))
    assert sip.tls_port == 5061 and sip.srtp == "off" and sip.tls_verify_peer is False


def test_verifying_the_peer_needs_a_ca_and_tls_needs_its_own_port(tmp_path):
    assert "sip.tls_ca_file: tls_verify_peer = true needs tls_ca_file" in error_of(
        tmp_path, "[sip]\ntls_verify_peer = true\n")
    files = 'tls_cert_file = "a.crt"\ntls_key_file = "a.key"\n'
    assert "sip.tls_port: must differ from port (5070)" in error_of(
        tmp_path, f'[sip]\ntransports = ["tcp", "tls"]\nport = 5070\ntls_port = 5070\n{files}')


def test_the_realm_is_never_a_wildcard(tmp_path):
    assert "sip.realm: must name the PBX's realm" in error_of(tmp_path, '[sip]\nrealm = "*"\n')


@pytest.mark.parametrize("peers, expected", [
    ('["0.0.0.0/0"]', "'0.0.0.0/0' lets any address send calls"),
    ('["::/0"]', "'::/0' lets any address send calls"),
    ('["10.0.0.0/8"]', "'10.0.0.0/8' is a very wide network (16,777,216 addresses)"),
    ("[]", "is empty: no one can call"),
])
def test_open_or_empty_allowed_peers_warn_at_load(tmp_path, caplog, peers, expected):
    path = write(tmp_path, f'[sip]\nmode = "peer"\nallowed_peers = {peers}\n')
    with caplog.at_level("WARNING", logger="appliance.settings"):
        settings = load_settings(path)
    assert [str(w) for w in settings.warnings()] == [m.split("warning: ", 1)[1] for m in caplog.messages]
    assert len(caplog.messages) == 1 and f"{path}: warning: sip.allowed_peers: {expected}" in caplog.messages[0]
    assert "list the PBX's address" in caplog.messages[0]


def test_a_site_network_and_the_pbx_alone_do_not_warn(tmp_path, caplog):
    with caplog.at_level("WARNING", logger="appliance.settings"):
        load_settings(write(tmp_path, '[sip]\nallowed_peers = ["192.168.1.10", "192.168.0.0/16", "fd00::/48"]\n'))
    assert caplog.messages == []


def test_mandatory_srtp_without_tls_warns_that_the_keys_travel_in_clear(tmp_path):
    settings = load_settings(write(tmp_path, '[sip]\nsrtp = "mandatory"\n'), warn=False)
    assert [w.key for w in settings.warnings()] == ["sip.srtp"]
    assert "in clear" in settings.warnings()[0].problem
    files = 'tls_cert_file = "a.crt"\ntls_key_file = "a.key"\n'
    with_tls = load_settings(write(tmp_path, f'[sip]\nsrtp = "mandatory"\ntransports = ["tls"]\n{files}'), warn=False)
    assert with_tls.warnings() == []


@pytest.mark.parametrize("text, expected", [
    ("[monitor_web]\nlisten = []\n", "monitor_web.listen: must name at least one address to listen on"),
    ("[monitor_web]\nlisten = ['8443']\n", "monitor_web.listen[0]: '8443' must be an address and a port, "
                                           'e.g. "127.0.0.1:8443"'),
    ("[monitor_web]\nlisten = ['127.0.0.1:8443', 'reception-pc:8443']\n",
     "monitor_web.listen[1]: 'reception-pc' is not an IP address"),
    ("[monitor_web]\nlisten = ['192.168.1.20:8443', '192.168.1.20:8443']\n",
     "monitor_web.listen[1]: '192.168.1.20:8443' is listed twice"),
    ("[monitor_web]\nsession_idle_minutes = 0\n", "monitor_web.session_idle_minutes: must be greater than 0"),
    ("[monitor_web]\nsession_hours = 1\nsession_idle_minutes = 90\n",
     "monitor_web.session_idle_minutes: must not be longer than session_hours (1 h)"),
    ("[monitor_web]\nsign_in_failures = 0\n", "monitor_web.sign_in_failures: must be greater than or equal to 1"),
    ("[monitor_web]\npassword = 'x'\n", "monitor_web.password: unknown key (known keys: listen, certificate, key"),
])
def test_the_browser_monitors_settings_are_checked(tmp_path, text, expected):
    assert expected in error_of(tmp_path, text)


def test_the_browser_monitor_listens_where_told_and_finds_its_files_beside_the_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("APPLIANCE_DB", raising=False)
    settings = load_settings(write(tmp_path, "[monitor_web]\nlisten = ['192.168.1.20:8443', '[::1]:9443']\n"
                                             "[paths]\ndata_dir = 'data'\n"))
    assert settings.monitor_web.addresses == [("192.168.1.20", 8443), ("::1", 9443)]
    assert settings.monitor_web_certificate == tmp_path / "tls" / "monitor-web.crt"    # what the installer makes
    assert settings.monitor_web_key == tmp_path / "tls" / "monitor-web.key"
    assert settings.staff_file == tmp_path / "data" / "staff-accounts"
    given = load_settings(write(tmp_path, "[monitor_web]\ncertificate = 'web/a.crt'\nkey = '/srv/a.key'\n"
                                          "staff_file = 'staff'\n"))
    assert (given.monitor_web_certificate, given.monitor_web_key, given.staff_file) == (
        tmp_path / "web" / "a.crt", Path("/srv/a.key"), tmp_path / "staff")
    assert Settings().monitor_web.addresses == [("127.0.0.1", 8443)]       # by default: this machine only
