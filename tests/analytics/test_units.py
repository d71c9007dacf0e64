"""Pieces that need no Spark: time parsing, jar selection, the report rendering, the CLI."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from staticconsumer.analytics import _deps
from staticconsumer.analytics._time import format_ms, parse_time_ms
from staticconsumer.cli import main

T = 1_767_225_600_000  # 2026-01-01T00:00:00Z


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1767225600000", T),
        ("2026-01-01", T),
        ("2026-01-01T00:00:00Z", T),
        ("2026-01-01T00:00:00.250z", T + 250),
        ("2026-01-01T02:00:00+02:00", T),
        ("2026-01-01 00:00:01", T + 1000),
    ],
)
def test_parse_time_accepts_iso_and_epoch_ms(text: str, expected: int) -> None:
    assert parse_time_ms(text) == expected


def test_parse_time_names_the_field_on_error() -> None:
    with pytest.raises(ValueError, match=r"--since: 'yesterday' is neither epoch milliseconds"):
        parse_time_ms("yesterday", field="--since")


def test_format_ms() -> None:
    assert format_ms(T + 7) == "2026-01-01 00:00:00.007"
    assert format_ms(None) == "-"


def test_artifact_names_drop_the_version() -> None:
    from staticconsumer.analytics.session import artifact_name

    assert artifact_name("spark-sql-kafka-0-10_2.13-4.0.0.jar") == "spark-sql-kafka-0-10_2.13"
    assert artifact_name("hadoop-client-runtime-3.4.1.jar") == "hadoop-client-runtime"
    assert artifact_name("guava-33.4.0-jre.jar") == "guava"
    assert artifact_name("scala-library-2.13.15.jar") == "scala-library"


def test_kafka_source_jars_leave_out_what_spark_ships() -> None:
    from staticconsumer.analytics.session import artifact_name, kafka_source_jars

    names = {artifact_name(jar.name) for jar in kafka_source_jars()}
    assert {"spark-sql-kafka-0-10_2.13", "spark-token-provider-kafka-0-10_2.13"} <= names
    assert {"kafka-clients", "commons-pool2"} <= names
    assert not names & {"spark-core_2.13", "spark-sql_2.13", "scala-library", "slf4j-api"}
    assert not any(name.startswith("hadoop-client") for name in names)


def test_missing_pyspark_names_the_extra(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "pyspark" else real(name, *args)

    monkeypatch.setattr(_deps.importlib.util, "find_spec", find_spec)
    with pytest.raises(ImportError, match=r"pip install 'staticconsumer\[spark\]'"):
        _deps.require_spark()
    code = main(["report", "--bootstrap-servers", "x:1", "--events-topic", "t", "--out", "o"])
    assert code == 1
    assert "staticconsumer[spark]" in capsys.readouterr().err


def test_report_rejects_a_bad_range(capsys: Any, tmp_path: Path) -> None:
    args = ["report", "--bootstrap-servers", "x:1", "--events-topic", "t", "--out", str(tmp_path)]
    assert main([*args, "--since", "soon"]) == 2
    assert "--since: 'soon'" in capsys.readouterr().err
    assert main([*args, "--since", "2026-01-02", "--until", "2026-01-01"]) == 2
    assert "must be before --until" in capsys.readouterr().err
    assert main([*args, "--spark-conf", "novalue"]) == 2


def _data(**overrides: Any) -> Any:
    from staticconsumer.analytics.report import ReportData

    fields: dict[str, Any] = {
        "title": "report <test>",
        "groups": [
            {"group_id": "g<1>", "events": 5, "rebalances": 1, "rebalance_reasons": ["deploy"],
             "partitions_moved": 2, "paused_partition_seconds": 1.5, "first_ms": T, "last_ms": T}
        ],
        "rebalances": [{"group_id": "g<1>", "generation_id": 2, "ts_ms": T + 500,
                        "reasons": ["deploy & <roll>"]}],
        "timeline": [
            {"group_id": "g<1>", "owner": "a", "ts_ms": T, "partitions": 2},
            {"group_id": "g<1>", "owner": "a", "ts_ms": T + 400, "partitions": 0},
            {"group_id": "g<1>", "owner": "b", "ts_ms": T + 600, "partitions": 2},
        ],
        "fencing": [],
        "restarts": [],
        "instances": [{"group_id": "g<1>", "group_instance_id": "a",
                       "time_without_partitions_ms": 1500}],
        "range_end_ms": T + 1000,
        "facts": {"records read": "5"},
    }  # fmt: skip
    fields.update(overrides)
    return ReportData(**fields)


def test_report_html_is_self_contained_and_escaped() -> None:
    from staticconsumer.analytics.report import render_html, render_timeline_png

    data = _data()
    png = render_timeline_png(data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    page = render_html(data, png)
    assert "data:image/png;base64,iVBORw0KGgo" in page
    assert "g&lt;1&gt;" in page and "<1>" not in page
    assert "deploy &amp; &lt;roll&gt;" in page
    assert "2026-01-01 00:00:00.500" in page  # timestamps in UTC
    assert "1.500 s" in page  # durations in seconds
    assert "no member was fenced" in page
    assert "src='http" not in page and 'src="http' not in page


def test_timeline_png_without_events_still_renders() -> None:
    from staticconsumer.analytics.report import render_timeline_png

    png = render_timeline_png(_data(groups=[], rebalances=[], timeline=[], instances=[]))
    assert png.startswith(b"\x89PNG") and len(png) > 1000


def test_timeline_png_shortens_owners_and_lists_reasons() -> None:
    from staticconsumer.analytics import report

    member = "demo-app-1-thread-1-cda8d350-cf63-4ea4-a665-83321e6d0aef"
    assert report.short_owner(member) == "demo-app-1-thread-1-cda8d3\u2026"
    assert report.short_owner("demo-app-0-thread-0") == "demo-app-0-thread-0"
    long_id = "an-instance-id-that-is-quite-long-indeed-0001"
    assert report.short_owner(long_id) == long_id[:28] + "\u2026"
    # labels that would collide keep their tails, so every row stays distinguishable
    labels = report._owner_labels([long_id + "-A", long_id + "-B"])
    assert len(set(labels)) == 2
    markers = [
        {"group_id": "g", "generation_id": n, "ts_ms": T + n, "reasons": ["x" * 1000]}
        for n in range(1, 20)
    ]
    lines = report._reason_lines(markers)
    assert lines[0].startswith("gen 1  00:00:00.001  xxx")
    assert lines[-1].startswith("\u2026 and 7 more rebalances")
    assert all(len(line) <= report.REASON_WRAP for line in lines)
    timeline = [
        {"group_id": "g<1>", "owner": f"{member}-{n}", "ts_ms": T + 10 * n, "partitions": n % 3}
        for n in range(40)
    ]
    data = _data(rebalances=[{**row, "group_id": "g<1>"} for row in markers], timeline=timeline)
    png = report.render_timeline_png(data)
    assert png.startswith(b"\x89PNG") and png == report.render_timeline_png(data)


def test_report_command_passes_its_arguments(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    from staticconsumer.analytics import _result, job
    from staticconsumer.security import SecuritySettings

    calls: list[tuple[Any, ...]] = []
    figures = _result.GroupFigures(
        group_id="g", events=9, first_ms=T, last_ms=T, instances=3, members=3, generations=1,
        rebalances=0, partitions_moved=0, revocations=2, restarts=3,
        restarts_without_rebalance=3, fencing_incidents=1, paused_partition_seconds=8.6,
        rebalance_reasons=(),
    )  # fmt: skip

    def fake_run_report(*args: Any, **kwargs: Any) -> Any:
        calls.append((*args, kwargs))
        return _result.ReportResult(
            out=tmp_path, report_html=tmp_path / "report.html", timeline_png=tmp_path / "t.png",
            tables={}, groups={"g": figures}, records_read=9, valid_events=9, duplicates=0,
            events_in_range=9, since_ms=None, until_ms=None, range_end_ms=T,
        )  # fmt: skip

    monkeypatch.setattr(job, "run_report", fake_run_report)
    config = tmp_path / "client.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        'username="u" password="p";\n'
    )
    code = main([
        "report", "--bootstrap-servers", "b:9092", "--events-topic", "events",
        "--out", str(tmp_path), "--since", "2026-01-01", "--until", "1767225660000",
        "--master", "spark://m:7077", "--spark-conf", "spark.executor.memory=4g",
        "--command-config", str(config),
    ])  # fmt: skip
    assert code == 0
    security = SecuritySettings(
        security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
        sasl_plain_username="u", sasl_plain_password="p",
    )  # fmt: skip
    assert calls == [
        (
            "b:9092", "events", str(tmp_path), T, T + 60_000, "spark://m:7077",
            {"spark_conf": {"spark.executor.memory": "4g"}, "tables_uri": None,
             "security": security},
        )
    ]  # fmt: skip
    printed = capsys.readouterr().out
    assert (
        "group g: 0 rebalances (reasons: -), 0 partitions moved, 8.600 paused "
        "partition-seconds, 3 restarts (3 without rebalance), 1 fencing incidents"
    ) in printed
    assert f"report: {tmp_path / 'report.html'}" in printed


def test_public_names_resolve() -> None:
    import staticconsumer.analytics as analytics

    assert analytics.__all__ == sorted(analytics.__all__, key=lambda n: (not n.isupper(), n))
    for name in analytics.__all__:
        assert getattr(analytics, name) is not None, name
    with pytest.raises(AttributeError):
        _ = analytics.no_such_name
