"""benchmarks/cold_start.py --quick runs end to end and writes its results file with every
column the SoftGPU under test can measure (a smoke test: no timing is asserted)."""
import json
import subprocess
import sys

from benchmarks import cold_start
from tests.support.paths import ROOT


def test_quick_run_writes_every_column(tmp_path):
    results = tmp_path / "cold_start.json"
    subprocess.run([sys.executable, "benchmarks/cold_start.py", "--quick", "--results", str(results)],
                   cwd=ROOT, check=True, capture_output=True, timeout=600)
    record = json.loads(results.read_text())
    assert record["benchmark"] == "cold_start" and record["command"] == ["--quick", "--results", str(results)]
    figures = record["figures"]
    assert figures["kernels"] == [f"{name}{opt}" for name, opt in cold_start.QUICK]
    columns = cold_start.columns()
    assert {"cold", "warm", "interp"} <= set(columns)
    assert figures["columns"] == columns
    suite = figures["suite"]
    assert set(suite["seconds"]) == set(columns)
    for column in columns:
        row = suite["seconds"][column]
        assert len(row["runs"]) == figures["repeat"] == 1 and 0 < row["min"] <= row["median"]
    assert set(suite["ratios"]) == {f"{c}_to_interp" for c in columns if c != "interp"} | {"cold_to_warm"}
    dispatch = figures["first_dispatch"]
    assert set(dispatch["seconds"]) == {"first_cached", "first_empty_cache", "later"}
    assert set(dispatch["ratios"]) == {"first_cached_to_later", "first_empty_cache_to_later"}
    assert all(ratio["min"] > 0 and ratio["median"] > 0
               for ratio in (*suite["ratios"].values(), *dispatch["ratios"].values()))


def test_auto_column_follows_the_engine_setting(monkeypatch):
    """"auto" is measured exactly when SOFTGPU_ENGINE accepts that value."""
    from core import settings
    accepted = set()

    def get(name, environ=None):
        if environ and environ.get(name) not in accepted:
            raise settings.InvalidSetting("must be one of native, interp")
        return environ[name] if environ else settings.BY_NAME[name].default
    monkeypatch.setattr(settings, "get", get)
    assert cold_start.columns() == ["cold", "warm", "interp"]
    accepted.add("auto")
    assert cold_start.columns() == ["cold", "warm", "interp", "auto"]
