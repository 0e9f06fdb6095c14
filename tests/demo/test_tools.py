from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from agent.errors import InvalidParams, ToolError
from agent.tools import load_tools
from demo import tools as demo_tools
from demo.world import SERVICE_NAMES, InMemoryWorld, current_world, seed, use_world


@pytest.fixture
def world() -> Iterator[InMemoryWorld]:
    world = InMemoryWorld()
    seed(world, now=time.time())
    with use_world(world):
        yield world


def error_rate(world: InMemoryWorld, service: str) -> float:
    found = world.get_service(service)
    assert found is not None
    return found.error_rate


def test_seed_with_fresh_world_has_five_services_and_degraded_payments(world: InMemoryWorld) -> None:
    assert [s.name for s in world.services()] == list(SERVICE_NAMES)
    payments = world.get_service("payments")
    assert payments is not None
    assert (payments.status, payments.version, payments.previous_version) == ("degraded", "2.4.1", "2.4.0")
    assert payments.error_rate > 0.1
    assert "Connection pool exhausted" in demo_tools.read_logs("payments", level="error")


def test_list_services_with_seeded_world_shows_aligned_table(world: InMemoryWorld) -> None:
    lines = demo_tools.list_services().splitlines()
    assert lines[0].split() == ["SERVICE", "STATUS", "VERSION", "REPLICAS", "ERRORS", "P99"]
    assert lines[1].split()[:3] == ["payments", "degraded", "2.4.1"]
    assert len(lines) == 1 + len(SERVICE_NAMES)
    assert len({line.index(line.split()[1]) for line in lines}) == 1


def test_check_service_with_payments_shows_health(world: InMemoryWorld) -> None:
    text = demo_tools.check_service("payments")
    assert text.startswith("payments: DEGRADED")
    for part in ("2.4.1 (previous 2.4.0)", "replicas     4", "18.4%", "2,350 ms", "48,210 keys"):
        assert part in text


def test_restart_service_with_degraded_payments_drops_error_rate_and_logs(world: InMemoryWorld) -> None:
    before = error_rate(world, "payments")

    result = demo_tools.restart_service("payments")

    payments = world.get_service("payments")
    assert payments is not None
    assert payments.status == "running"
    assert payments.error_rate < before / 10
    assert "degraded → running" in result
    logs = demo_tools.read_logs("payments", limit=2)
    assert "Rolling restart requested by operator" in logs
    assert "started on 4/4 replicas" in logs
    assert demo_tools.query_metrics("payments", "error_rate", 15).splitlines()[-1].startswith("now 0.20%")


def test_query_metrics_with_incident_shows_rise_in_window(world: InMemoryWorld) -> None:
    text = demo_tools.query_metrics("payments", "error_rate", 60)
    lines = text.splitlines()
    assert lines[0] == "payments error_rate, last 60 min (4-minute buckets):"
    assert len(lines) == 1 + 15 + 1
    assert lines[-1].startswith("now 18.4%")
    assert "min 0." in lines[-1]


@pytest.mark.parametrize(("metric", "unit"), [("latency_p99", " ms"), ("cpu", "%"), ("requests", " req/s")])
def test_query_metrics_with_each_metric_uses_its_unit(world: InMemoryWorld, metric: str, unit: str) -> None:
    lines = demo_tools.query_metrics("search", metric, 5).splitlines()  # type: ignore[arg-type]
    assert len(lines) == 1 + 5 + 1
    assert all(line.endswith(unit) for line in lines[1:-1])


def test_read_logs_with_error_level_shows_only_errors(world: InMemoryWorld) -> None:
    lines = demo_tools.read_logs("payments", level="error", limit=3).splitlines()
    assert lines[0] == "payments logs at error level or above, last 3:"
    assert all(" ERROR " in line for line in lines[1:])


def test_read_logs_with_no_matching_lines_says_so(world: InMemoryWorld) -> None:
    assert demo_tools.read_logs("search", level="error") == "No search log lines at error level or above."


def test_deploy_then_rollback_restores_version(world: InMemoryWorld) -> None:
    assert "Deployed payments 2.4.2 (was 2.4.1)" in demo_tools.deploy_service("payments", "v2.4.2")
    deployed = world.get_service("payments")
    assert deployed is not None
    assert (deployed.version, deployed.previous_version, deployed.status) == ("2.4.2", "2.4.1", "running")

    assert "Rolled payments back to 2.4.1" in demo_tools.rollback_service("payments")
    rolled_back = world.get_service("payments")
    assert rolled_back is not None
    assert (rolled_back.version, rolled_back.previous_version) == ("2.4.1", "2.4.2")
    assert "Rollout of 2.4.1 complete" in demo_tools.read_logs("payments", limit=1)


@pytest.mark.parametrize(
    ("version", "message"),
    [("latest", "not a release version"), ("2.4.1", "already runs 2.4.1; use restart_service")],
)
def test_deploy_service_with_bad_version_raises(world: InMemoryWorld, version: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        demo_tools.deploy_service("payments", version)


def test_rollback_service_without_previous_version_raises(world: InMemoryWorld) -> None:
    with pytest.raises(ToolError, match="notifications has no previous version.*deploy_service"):
        demo_tools.rollback_service("notifications")


@pytest.mark.parametrize("replicas", [0, 51, -3])
def test_scale_service_outside_bounds_raises(world: InMemoryWorld, replicas: int) -> None:
    with pytest.raises(ToolError, match=f"Cannot scale search to {replicas} replicas: pick a count from 1 to 50"):
        demo_tools.scale_service("search", replicas)


@pytest.mark.parametrize("replicas", [0, 51])
def test_scale_service_params_outside_bounds_fail_validation(replicas: int) -> None:
    with pytest.raises(InvalidParams, match="replicas"):
        load_tools().get("scale_service").validate({"service": "search", "replicas": replicas})


@pytest.mark.parametrize("replicas", [1, 50])
def test_scale_service_at_bounds_changes_replicas_and_spreads_cpu(world: InMemoryWorld, replicas: int) -> None:
    result = demo_tools.scale_service("search", replicas)
    search = world.get_service("search")
    assert search is not None
    assert search.replicas == replicas
    assert search.cpu == min(100.0, 52 * 8 / replicas)
    assert result.startswith(f"Scaled search from 8 to {replicas} replicas")


def test_scale_service_to_same_count_changes_nothing(world: InMemoryWorld) -> None:
    assert demo_tools.scale_service("search", 8) == "search already runs 8 replicas; nothing changed."


def test_drop_cache_empties_cache_then_reports_already_empty(world: InMemoryWorld) -> None:
    assert "Dropped the auth cache (15,320 keys" in demo_tools.drop_cache("auth")
    cache = world.get_cache("auth")
    assert cache is not None
    assert (cache.keys, cache.hit_rate) == (0, 0.0)
    assert demo_tools.drop_cache("auth") == "The auth cache is already empty; nothing to drop."


def test_send_message_lands_in_outbox(world: InMemoryWorld) -> None:
    assert demo_tools.send_message(" #payments-oncall ", "Restarted payments; errors back to 0.2%.") == (
        "Sent to #payments-oncall: Restarted payments; errors back to 0.2%."
    )
    [message] = world.outbox()
    assert (message.channel, message.text) == ("#payments-oncall", "Restarted payments; errors back to 0.2%.")


def test_send_message_with_empty_text_raises(world: InMemoryWorld) -> None:
    with pytest.raises(ToolError, match="needs both a channel"):
        demo_tools.send_message("#ops", "  ")
    assert world.outbox() == []


def test_tool_with_unknown_service_in_world_raises(world: InMemoryWorld) -> None:
    with use_world(InMemoryWorld()), pytest.raises(ToolError, match="Unknown service 'payments'"):
        demo_tools.check_service("payments")


def test_tool_without_bound_world_raises_clear_error() -> None:
    with pytest.raises(ToolError, match="No ops world is bound; run tools through the Tandem runtime"):
        demo_tools.list_services()
    with pytest.raises(ToolError, match="No ops world is bound"):
        current_world()


def test_use_world_after_block_unbinds() -> None:
    world = InMemoryWorld()
    with use_world(world):
        assert current_world() is world
    with pytest.raises(ToolError):
        current_world()


async def test_call_through_spec_sees_world_bound_by_caller(world: InMemoryWorld) -> None:
    result = await load_tools().get("restart_service").call({"service": "payments"})
    assert "degraded → running" in result
    assert error_rate(world, "payments") < 0.01
