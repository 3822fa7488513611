"""The example Prometheus set-up in config/prometheus/ (docs/scale.md): Debian's promtool accepts the config and
the alert rules, each alert fires on the series it is for (alerts_test.yml), and the rules use only metrics the
service exports."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from appliance.sip.metrics import ServiceMetrics

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "config" / "prometheus"
RULES = FOLDER / "alerts.yml"


@pytest.fixture(scope="module")
def promtool() -> str:
    found = shutil.which("promtool") or next((p for p in ("/usr/bin/promtool",) if Path(p).is_file()), None)
    if found is None:
        pytest.skip("promtool is not installed: it comes with Debian's prometheus package "
                    "(apt-get install prometheus; installer/dev-setup.sh does)")
    return found


def run(promtool: str, *args: str) -> str:
    done = subprocess.run([promtool, *args], cwd=FOLDER, capture_output=True, text=True, timeout=60)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def alerts() -> dict[str, str]:
    rules = yaml.safe_load(RULES.read_text())
    return {rule["alert"]: rule["expr"] for group in rules["groups"] for rule in group["rules"]}


def test_promtool_checks_the_rules(promtool):
    assert f"SUCCESS: {len(alerts())} rules found" in run(promtool, "check", "rules", RULES.name)


def test_each_alert_fires_on_its_series_and_not_on_a_healthy_box(promtool):
    assert "SUCCESS" in run(promtool, "test", "rules", "alerts_test.yml")


def test_promtool_checks_the_scrape_config(promtool):
    assert "is valid prometheus config file syntax" in run(promtool, "check", "config", "prometheus.yml")


def test_the_rules_cover_latency_registration_and_failed_calls():
    rules = alerts()
    assert "appliance_reply_latency_seconds_bucket" in rules["ApplianceRepliesSlow"]
    assert "> 1.6" in rules["ApplianceRepliesSlow"] and "0.95" in rules["ApplianceRepliesSlow"]
    assert "appliance_sip_registration" in rules["ApplianceRegistrationLost"]
    assert '"failed|' in rules["ApplianceCallFailed"]


def test_the_rules_name_only_metrics_the_service_exports():
    exported = {line.split("{")[0].split(" ")[0] for line in ServiceMetrics().text().splitlines()
                if line and not line.startswith("#")}
    used = {name for expr in alerts().values() for name in re.findall(r"\bappliance_\w+", expr)}
    assert used and used <= exported, used - exported


def test_the_scale_doc_names_every_alert():
    doc = (ROOT / "docs" / "scale.md").read_text()
    assert all(name in doc for name in alerts())
